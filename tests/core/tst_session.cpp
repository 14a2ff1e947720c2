// One workflow (issue 20): core/session's Session owns the sequence every front end runs — warnings,
// pre-flight, the dataset generated when workflow.generate_data asks and checked again, the invocation or
// the benchmark — and reports it through its observer, in order. The CLI (tst_cli, tst_first_hour), the
// GUI (tst_run_safety::theWindowGeneratesWhenTheConfigSaysSo) and the sweep (tst_sweep) use it; here the
// session itself: the order of what it reports, a refusal that creates nothing, checkpoint-only mode,
// a benchmark's invocations in memory, a cancel while generating.
#include "testsupport.h"

#include "config/config_loader.h"
#include "session/session.h"

#include <atomic>

namespace fs = std::filesystem;
using namespace trainio;

namespace {

std::string yamlFor(const fs::path& data, bool generate, int files) {
    return "model:\n  name: session\nframework: pytorch\nworkflow:\n  generate_data: " + std::string(generate ? "True" : "False") +
           "\n  train: True\ndataset:\n  data_folder: " + data.string() + "\n  format: npz\n  num_files_train: " +
           std::to_string(files) +
           "\n  num_samples_per_file: 1\n  record_length_bytes: 16384\nreader:\n  data_loader: pytorch\n  batch_size: 2\n"
           "  read_threads: 1\ntrain:\n  epochs: 2\n  computation_time: 0.001\nmetric:\n  au: 0.5\n";
}

// Everything the session reports, as one line each, in order.
struct Recorder final : session::SessionObserver {
    std::vector<std::string> events;
    std::atomic<bool>* cancelOnFirstFile = nullptr;
    void onMessage(const std::string& t) override { events.push_back("message " + t); }
    void onCheckpointPlan(const checkpoint::CheckpointPlan&) override { events.push_back("checkpoint plan"); }
    void onGeneration(const GenerationProgress& p) override {
        if (events.empty() || events.back() != "generating") events.push_back("generating");
        if (cancelOnFirstFile && p.filesDone >= 1) cancelOnFirstFile->store(true);
    }
    void onGenerated(const GenerationResult& r, std::uint64_t processes) override {
        events.push_back("generated " + std::to_string(r.filesWritten) + " by " + std::to_string(processes));
    }
    void onInvocationStart(const std::string& label, const fs::path& dir, std::size_t index) override {
        events.push_back("start " + label + " #" + std::to_string(index) + " " + dir.filename().string());
    }
    void onInvocationDone(const std::string& label, const fs::path&, const RunOutcome& out) override {
        events.push_back("done " + label + " " + toString(out.status));
    }
    std::vector<std::string> without(const std::string& prefix) const {
        std::vector<std::string> out;
        for (const auto& e : events)
            if (e.rfind(prefix, 0) != 0) out.push_back(e);
        return out;
    }
};

} // namespace

class TestSession : public QObject {
    Q_OBJECT
    QTemporaryDir tmp_;

    WorkloadConfig config(const std::string& name, bool generate, int files, const std::vector<std::string>& overrides = {}) {
        const fs::path dir = fs::path(tmp_.path().toStdString()) / name;
        fs::create_directories(dir);
        const fs::path yaml = dir / "w.yaml";
        testsupport::writeText(yaml, yamlFor(dir / "data", generate, files));
        return loadWorkloadConfig(yaml.string(), overrides).config;
    }
    fs::path folder(const std::string& name) { return fs::path(tmp_.path().toStdString()) / name; }

private slots:
    // generate_data: generated, checked again, measured — in that order, with the invocation's folder.
    void generatesThenMeasures() {
        session::SessionRequest req;
        req.config = config("gen", true, 8);
        req.output = folder("gen") / "out";
        req.accelerators = 2;
        Recorder rec;
        const session::SessionResult r = session::Session(req, rec).run();
        QVERIFY2(r.complete, r.error.c_str());
        QVERIFY(r.measured);
        QCOMPARE(r.resultFolder, req.output);
        QCOMPARE(r.outcomes.size(), std::size_t(1));
        QVERIFY(fs::exists(req.output / "summary.json"));
        const std::vector<std::string> expected{"generating", "generated 8 by 1", "start invocation #0 out", "done invocation complete"};
        QCOMPARE(rec.without("message "), expected);
        // A second session on the same folder's dataset generates nothing more (complete files are kept).
        session::SessionRequest again = req;
        again.output = folder("gen") / "out2";
        Recorder rec2;
        QVERIFY(session::Session(again, rec2).run().complete);
        QCOMPARE(rec2.without("message ")[1], std::string("generated 0 by 1"));
    }

    // A refusal names every problem, keeps them apart for the GUI's dialog, and creates nothing.
    void aRefusalMeasuresNothing() {
        session::SessionRequest req;
        req.config = config("missing", false, 8);
        req.output = folder("missing") / "out";
        Recorder rec;
        session::Session s(req, rec);
        try {
            s.run();
            QFAIL("a run on a dataset that is not there was not refused");
        } catch (const session::PreflightFailed& e) {
            QVERIFY(!e.problems.empty());
            QVERIFY2(std::string(e.what()).find("nothing was measured") != std::string::npos, e.what());
            QVERIFY2(std::string(e.what()).find(req.config.dataset.dataFolder) != std::string::npos, e.what());
        }
        QVERIFY(!fs::exists(req.output));
        QVERIFY(rec.without("message ").empty());
    }

    // A benchmark: a warm-up and the runs, every outcome handed back in memory, labelled as the CLI shows them.
    void aBenchmarkHandsBackEveryInvocation() {
        session::SessionRequest req;
        req.config = config("bench", true, 8);
        req.mode = session::SessionMode::Benchmark;
        req.output = folder("bench") / "b";
        req.accelerators = 2;
        req.runs = 2;
        req.warmups = 1;
        Recorder rec;
        const session::SessionResult r = session::Session(req, rec).run();
        QVERIFY2(r.complete, r.error.c_str());
        QCOMPARE(r.outcomes.size(), std::size_t(3));
        for (const auto& o : r.outcomes) QCOMPARE(o.status, RunStatus::Complete);
        const std::vector<std::string> expected{"generating",           "generated 8 by 1",       "start warm-up #0 warmup",
                                                "done warm-up complete", "start run 1/2 #1 run-1", "done run 1/2 complete",
                                                "start run 2/2 #2 run-2", "done run 2/2 complete"};
        QCOMPARE(rec.without("message "), expected);
        QVERIFY(fs::exists(req.output / "trainio_benchmark.json"));
    }

    // Checkpoint-only mode: the plan first; a checkpoint that cannot be done is a pre-flight problem named
    // "checkpoint", before any byte is written (here: reading back checkpoints nobody wrote).
    void checkpointOnlyChecksThePlan() {
        const fs::path dir = folder("ckpt");
        fs::create_directories(dir);
        const std::string yaml = "model:\n  name: tiny_llama\n  type: transformer\n  num_layers: 2\n"
                                 "  parallelism:\n    zero_stage: 3\n"
                                 "  transformer:\n    vocab_size: 1000\n    hidden_size: 64\n    ffn_hidden_size: 256\n"
                                 "    num_attention_heads: 4\n    num_kv_heads: 2\n"
                                 "framework: pytorch\nworkflow:\n  generate_data: False\n  train: False\n  checkpoint: True\n"
                                 "dataset:\n  data_folder: " + (dir / "data").string() + "\n  format: npz\n"
                                 "  num_files_train: 16\n  num_samples_per_file: 1\n  record_length_bytes: 4096\n"
                                 "reader:\n  data_loader: pytorch\n  batch_size: 2\n  read_threads: 1\n"
                                 "train:\n  epochs: 1\n  computation_time: 0.001\n"
                                 "checkpoint:\n  checkpoint_folder: " + (dir / "c").string() +
                                 "\n  num_checkpoints_write: 0\n  num_checkpoints_read: 1\n";
        session::SessionRequest req;
        req.config = loadWorkloadConfigFromString(yaml, "tiny_llama.yaml").config;
        req.output = dir / "out";
        Recorder rec;
        try {
            session::Session(req, rec).run();
            QFAIL("reading back a checkpoint nobody wrote was not refused");
        } catch (const session::PreflightFailed& e) {
            QCOMPARE(e.problems.size(), std::size_t(1));
            QCOMPARE(e.problems[0].subject, std::string("checkpoint"));
            QVERIFY2(std::string(e.what()).find("checkpoint.num_checkpoints_read") != std::string::npos, e.what());
        }
        QCOMPARE(rec.events.front(), std::string("checkpoint plan"));
        QVERIFY(!fs::exists(req.output / "summary.json"));
    }

    // Cancelled while generating: nothing measured, no invocation started, the result says cancelled.
    void aCancelWhileGeneratingMeasuresNothing() {
        std::atomic<bool> cancel{false};
        session::SessionRequest req;
        req.config = config("cancel", true, 64);
        req.output = folder("cancel") / "out";
        req.invocation.cancel = &cancel;
        Recorder rec;
        rec.cancelOnFirstFile = &cancel;
        const session::SessionResult r = session::Session(req, rec).run();
        QVERIFY(r.cancelled);
        QVERIFY(!r.measured);
        QVERIFY(!r.complete);
        for (const auto& e : rec.events) QVERIFY2(e.rfind("start ", 0) != 0, e.c_str());
        QVERIFY(!fs::exists(req.output / "summary.json"));
    }
};

QTEST_GUILESS_MAIN(TestSession)
#include "tst_session.moc"
