// The results library in the GUI: the fixture tree imports into the item model with the expected
// counts, the model passes QAbstractItemModelTester while data is fed, check states propagate, the
// aggregate and its rule are shown, folders persist, and bad folders give a message instead of a crash.
#include "library/results_library_loader.h"
#include "library/results_page.h"
#include "models/results_tree_model.h"
#include "gui_test_support.h"
#include "testsupport.h"

#include <QAbstractItemModelTester>
#include <QApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLocale>
#include <QBrush>
#include <QPushButton>
#include <QTextBrowser>
#include <QTreeView>
#include <QSettings>
#include <QSignalSpy>
#include <QTest>

#include <cerrno>
#include <cstring>
#include <functional>
#include <thread>

#include <dirent.h>
#include <linux/capability.h>
#include <sys/syscall.h>
#include <unistd.h>

using namespace trainio::ui;

namespace {

// Runs f on a thread of its own whose capability sets lack CAP_DAC_OVERRIDE and CAP_DAC_READ_SEARCH.
// Linux credentials are per thread (and the raw capset syscall changes only the caller's), so the
// rest of the process keeps its rights; for a normal user there is nothing to drop. Returns why the
// capabilities could not be dropped, or "".
QString onThreadWithoutFileModeOverride(const std::function<void()>& f) {
    QString error;
    std::thread t([&] {
        __user_cap_header_struct header{_LINUX_CAPABILITY_VERSION_3, 0};
        __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3]{};
        if (::syscall(SYS_capget, &header, data) != 0) {
            error = QStringLiteral("capget: ") + QString::fromLocal8Bit(std::strerror(errno));
            return;
        }
        for (const int cap : {CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH}) {
            const auto bit = ~(1u << (cap % 32));
            data[cap / 32].effective &= bit;
            data[cap / 32].permitted &= bit; // access() checks a real-uid-root caller's permitted set
            data[cap / 32].inheritable &= bit;
        }
        if (::syscall(SYS_capset, &header, data) != 0) {
            error = QStringLiteral("capset: ") + QString::fromLocal8Bit(std::strerror(errno));
            return;
        }
        f();
    });
    t.join();
    return error;
}

} // namespace
using trainio::aggregate::LibraryNode;
using trainio::aggregate::NodeKind;

class TestResultsTreeModel : public QObject {
    Q_OBJECT
    QTemporaryDir settingsDir_;
    const QString fixture_ = QStringLiteral(TRAINIO_TEST_DATA "/mlperf-storage-v1.0");

    // Loads the fixture through the loader the window uses, with the tester attached from the start.
    void loadFixture(ResultsLibraryLoader& loader, ResultsTreeModel& model) { loadFolder(loader, model, fixture_); }
    static void loadFolder(ResultsLibraryLoader& loader, ResultsTreeModel& model, const QString& folder) {
        QObject::connect(&loader, &ResultsLibraryLoader::loaded, &model, &ResultsTreeModel::setLibrary);
        QSignalSpy loaded(&loader, &ResultsLibraryLoader::loaded);
        QString why;
        QVERIFY2(loader.addFolder(folder, &why), qPrintable(why));
        QTRY_VERIFY_WITH_TIMEOUT(!loader.isLoading() && loaded.count() >= 1, testsupport::kHangMs);
    }

    static QModelIndex findKind(const ResultsTreeModel& model, NodeKind kind, const QModelIndex& parent = {}) {
        for (int r = 0; r < model.rowCount(parent); ++r) {
            const QModelIndex i = model.index(r, 0, parent);
            if (model.data(i, ResultsTreeModel::NodeKindRole).toInt() == static_cast<int>(kind)) return i;
            const QModelIndex deeper = findKind(model, kind, i);
            if (deeper.isValid()) return deeper;
        }
        return {};
    }

private slots:
    void initTestCase() { uitest::isolateSettings(settingsDir_); }
    void init() { QSettings().clear(); }

    void fixtureTreeHasTheExpectedCounts() {
        ResultsLibraryLoader loader;
        ResultsTreeModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        loadFixture(loader, model);
        QCOMPARE(model.groupCount(), 39);
        QCOMPARE(model.runCount(), 195);
        QVERIFY(loader.library()->imported().skipped.empty());

        // Every benchmark row shows mean ± stdev over 5 runs and names MLPerf's rule in its tooltip.
        int benchmarks = 0;
        std::function<void(const QModelIndex&)> walk = [&](const QModelIndex& parent) {
            for (int r = 0; r < model.rowCount(parent); ++r) {
                const QModelIndex i = model.index(r, 0, parent);
                if (model.data(i, ResultsTreeModel::NodeKindRole).toInt() == static_cast<int>(NodeKind::Benchmark)) {
                    ++benchmarks;
                    QCOMPARE(model.data(i.siblingAtColumn(ResultsTreeModel::CountColumn)).toULongLong(), 5ull);
                    QVERIFY(model.data(i.siblingAtColumn(ResultsTreeModel::AuColumn)).toString().contains(QStringLiteral(" ± ")));
                    QVERIFY(model.data(i.siblingAtColumn(ResultsTreeModel::AuColumn), Qt::ToolTipRole)
                                .toString()
                                .contains(QStringLiteral("mean of per-run means, population stdev")));
                    QVERIFY(model.data(i.siblingAtColumn(ResultsTreeModel::StatusColumn), Qt::DecorationRole).isValid());
                    continue;
                }
                walk(i);
            }
        };
        walk({});
        QCOMPARE(benchmarks, 39);
    }

    void systemAndWorkloadRowsShowNoNumbers() {
        ResultsLibraryLoader loader;
        ResultsTreeModel model;
        loadFixture(loader, model);
        int aboveBenchmarks = 0;
        std::function<void(const QModelIndex&)> walk = [&](const QModelIndex& parent) {
            for (int r = 0; r < model.rowCount(parent); ++r) {
                const QModelIndex i = model.index(r, 0, parent);
                const auto kind = static_cast<NodeKind>(model.data(i, ResultsTreeModel::NodeKindRole).toInt());
                if (kind != NodeKind::System && kind != NodeKind::Workload) continue;
                ++aboveBenchmarks;
                for (int c : {ResultsTreeModel::AuColumn, ResultsTreeModel::SamplesColumn, ResultsTreeModel::MibColumn,
                              ResultsTreeModel::GibColumn}) {
                    QCOMPARE(model.data(i.siblingAtColumn(c)).toString(), QStringLiteral("—"));
                    QVERIFY(!model.data(i.siblingAtColumn(c), ResultsTreeModel::MeanRole).isValid());
                }
                QVERIFY(!model.data(i.siblingAtColumn(ResultsTreeModel::CountColumn)).isValid());
                // Still a status badge: complete, or the worst status below.
                QVERIFY(model.data(i.siblingAtColumn(ResultsTreeModel::StatusColumn), Qt::DecorationRole).isValid());
                walk(i);
            }
        };
        walk({});
        QVERIFY(aboveBenchmarks > 39 / 3); // at least every system and workload of the published tree
    }

    void statusBadgesAndExcludedReasonsAreShown() {
        // Three invocations of one benchmark folder (copies of a real DLIO run): one complete, one that
        // failed and one that was cancelled, as TrainIO's trainio_run.json marks them.
        QTemporaryDir dir;
        const QString runs = dir.filePath(QStringLiteral("bench/runs"));
        const QString source = QStringLiteral(TRAINIO_TEST_DATA "/dlio-runs/unet3d_256_np1");
        for (const char* name : {"run-1", "run-2", "run-3"}) QVERIFY(uitest::copyTree(source, runs + QLatin1Char('/') + QLatin1String(name)));
        auto mark = [&](const char* run, const QByteArray& json) {
            QFile f(runs + QLatin1Char('/') + QLatin1String(run) + QStringLiteral("/trainio_run.json"));
            return f.open(QIODevice::WriteOnly) && f.write(json) == json.size();
        };
        QVERIFY(mark("run-2", R"({"status": "failed", "error": "injected: No space left on device"})"));
        QVERIFY(mark("run-3", R"({"status": "cancelled"})"));

        ResultsLibraryLoader loader;
        ResultsTreeModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        loadFolder(loader, model, dir.path());

        QHash<QString, QModelIndex> byPath;
        std::function<void(const QModelIndex&)> walk = [&](const QModelIndex& parent) {
            for (int r = 0; r < model.rowCount(parent); ++r) {
                const QModelIndex i = model.index(r, 0, parent);
                if (model.data(i, ResultsTreeModel::NodeKindRole).toInt() == static_cast<int>(NodeKind::Invocation))
                    byPath.insert(QFileInfo(model.data(i, ResultsTreeModel::PathRole).toString()).fileName(), i);
                walk(i);
            }
        };
        walk({});
        QCOMPARE(byPath.size(), 3);
        const QModelIndex ok = byPath.value(QStringLiteral("run-1"));
        const QModelIndex failed = byPath.value(QStringLiteral("run-2"));
        const QModelIndex cancelled = byPath.value(QStringLiteral("run-3"));
        auto status = [&](const QModelIndex& i, int role = Qt::DisplayRole) {
            return model.data(i.siblingAtColumn(ResultsTreeModel::StatusColumn), role);
        };
        QCOMPARE(status(ok).toString(), QStringLiteral("complete"));
        QVERIFY(!model.data(ok, ResultsTreeModel::ExcludedRole).toBool());
        QVERIFY(model.data(ok.siblingAtColumn(ResultsTreeModel::AuColumn)).toString() != QStringLiteral("—"));
        QCOMPARE(status(failed).toString(), QStringLiteral("failed · excluded"));
        QCOMPARE(status(cancelled).toString(), QStringLiteral("cancelled · excluded"));
        QVERIFY2(status(failed, Qt::ToolTipRole).toString().contains(QStringLiteral("No space left on device")),
                 qPrintable(status(failed, Qt::ToolTipRole).toString()));
        for (const QModelIndex& i : {failed, cancelled}) {
            QVERIFY(model.data(i, ResultsTreeModel::ExcludedRole).toBool());
            QVERIFY(status(i, Qt::DecorationRole).isValid());
            QCOMPARE(model.data(i, Qt::ForegroundRole).value<QBrush>(), QApplication::palette().brush(QPalette::Disabled, QPalette::Text));
            QCOMPARE(model.data(i.siblingAtColumn(ResultsTreeModel::AuColumn)).toString(), QStringLiteral("—"));
        }
        QVERIFY(!model.data(ok, Qt::ForegroundRole).isValid());
        // The benchmark counts only the complete run.
        QCOMPARE(model.data(ok.parent().siblingAtColumn(ResultsTreeModel::CountColumn)).toULongLong(), 1ull);
        // Above the items, statuses are counted, not the worst one spread over a whole system.
        const QModelIndex workload = ok.parent().parent(), system = workload.parent();
        QCOMPARE(model.data(workload.siblingAtColumn(ResultsTreeModel::StatusColumn)).toString(), QStringLiteral("1 incomplete"));
        QCOMPARE(model.data(system.siblingAtColumn(ResultsTreeModel::StatusColumn)).toString(), QStringLiteral("1 incomplete"));
    }

    void detailsAndLabelsFollowTheSelection() {
        ResultsLibraryLoader loader;
        ResultsTreeModel model;
        ResultsPage page(&loader, &model);
        loadFixture(loader, model);
        auto* details = page.findChild<QTextBrowser*>(QStringLiteral("resultDetails"));
        QVERIFY(details);
        // A workload of the published tree with a passing benchmark: the details name it, no number of
        // the workload's own; labels are for systems, benchmarks and invocations only.
        QModelIndex workload;
        for (int s = 0; s < model.rowCount() && !workload.isValid(); ++s)
            for (int w = 0; w < model.rowCount(model.index(s, 0)) && !workload.isValid(); ++w)
                if (model.node(model.index(w, 0, model.index(s, 0)))->bestPassing) workload = model.index(w, 0, model.index(s, 0));
        QVERIFY(workload.isValid());
        page.tree()->setCurrentIndex(workload);
        const LibraryNode* wl = model.node(workload);
        const LibraryNode& best = *wl->children[*wl->bestPassing];
        QVERIFY2(details->toPlainText().contains(QStringLiteral("Best passing benchmark")) &&
                     details->toPlainText().contains(QString::fromStdString(best.itemName)),
                 qPrintable(details->toPlainText()));
        QVERIFY(!details->toPlainText().contains(QStringLiteral("95 % CI")));
        QVERIFY(!page.labelsButton()->isEnabled());
        // Its system: one summary line per workload, and labels can be edited.
        page.tree()->setCurrentIndex(workload.parent());
        QVERIFY(page.labelsButton()->isEnabled());
        QVERIFY(!model.node(workload.parent())->summary.empty());
        for (const auto& line : model.node(workload.parent())->summary)
            QVERIFY2(details->toPlainText().contains(QString::fromStdString(line)), qPrintable(details->toPlainText()));
        page.tree()->setCurrentIndex(model.index(0, 0, workload));
        QVERIFY(page.labelsButton()->isEnabled());
    }

    void checkpointingDetailsNameCheckpointNumbers() {
        // A published v3.0 checkpointing workload: its best passing benchmark is named with the checkpoint
        // write and read GiB/s (SAMSUNG MEMORY_AE llama3-8b: 15.914 / 17.769 in its summary.json), never an AU.
        ResultsLibraryLoader loader;
        ResultsTreeModel model;
        ResultsPage page(&loader, &model);
        loadFolder(loader, model, QStringLiteral(TRAINIO_TEST_DATA "/mlperf-storage-v3.0/closed/SAMSUNG"));
        auto* details = page.findChild<QTextBrowser*>(QStringLiteral("resultDetails"));
        QVERIFY(details);
        QModelIndex workload;
        for (int s = 0; s < model.rowCount() && !workload.isValid(); ++s)
            for (int w = 0; w < model.rowCount(model.index(s, 0)) && !workload.isValid(); ++w) {
                const QModelIndex i = model.index(w, 0, model.index(s, 0));
                const LibraryNode* n = model.node(i);
                if (!n->children.empty() && n->children.front()->type == trainio::aggregate::BenchmarkType::Checkpointing)
                    workload = i;
            }
        QVERIFY(workload.isValid());
        page.tree()->setCurrentIndex(workload);
        const QString text = details->toPlainText();
        QVERIFY2(text.contains(QStringLiteral("checkpoint write 15.914 GiB/s, read 17.769 GiB/s")), qPrintable(text));
        QVERIFY2(!text.contains(QStringLiteral("AU ")), qPrintable(text));
    }

    void benchmarkNumbersAreCoresAggregate() {
        ResultsLibraryLoader loader;
        ResultsTreeModel model;
        loadFixture(loader, model);
        const QModelIndex bench = findKind(model, NodeKind::Benchmark);
        QVERIFY(bench.isValid());
        const LibraryNode* node = model.node(bench);
        QVERIFY(node && node->group);
        const auto& agg = model.library()->aggregate(*node->group);
        QCOMPARE(model.data(bench.siblingAtColumn(ResultsTreeModel::AuColumn), ResultsTreeModel::MeanRole).toDouble(),
                 agg.au.mean.value);
        QCOMPARE(model.data(bench.siblingAtColumn(ResultsTreeModel::AuColumn), ResultsTreeModel::SpreadRole).toDouble(),
                 agg.au.populationStdev.value);
        // The noise floor (issue 33): the tooltip gives the lowest and the highest run, those of its children.
        double low = 1e300, high = -1e300;
        for (int r = 0; r < model.rowCount(bench); ++r) {
            const LibraryNode* run = model.node(model.index(r, 0, bench));
            if (run->kind != NodeKind::Invocation || run->warmup || run->excluded) continue;
            low = std::min(low, run->au.mean);
            high = std::max(high, run->au.mean);
        }
        QVERIFY(low <= high);
        const QString tip = model.data(bench.siblingAtColumn(ResultsTreeModel::AuColumn), Qt::ToolTipRole).toString();
        QVERIFY2(tip.contains(QStringLiteral("runs from %1 to %2 (the run-to-run spread)").arg(low, 0, 'f', 3).arg(high, 0, 'f', 3)), qPrintable(tip));
    }

    // MLPerf Storage v3.0 checkpointing: the Ckpt write/read GiB/s columns carry summary.json's
    // save_/load_checkpoint_io_mean_GB_per_second (read here with QJsonDocument), the training ones "—".
    void checkpointingRowsShowWriteAndRead() {
        ResultsLibraryLoader loader;
        ResultsTreeModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        const QString dir = QStringLiteral(TRAINIO_TEST_DATA "/mlperf-storage-v3.0/closed/SAMSUNG/results/MEMORY_AE/checkpointing");
        loadFolder(loader, model, dir);
        const QModelIndex bench = findKind(model, NodeKind::Benchmark);
        QVERIFY(bench.isValid());
        QFile f(dir + QStringLiteral("/llama3-8b/20260721_000424/summary.json"));
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QJsonObject metric = QJsonDocument::fromJson(f.readAll()).object().value(QStringLiteral("metric")).toObject();
        QCOMPARE(model.data(bench.siblingAtColumn(ResultsTreeModel::CkptWriteColumn), ResultsTreeModel::MeanRole).toDouble(),
                 metric.value(QStringLiteral("save_checkpoint_io_mean_GB_per_second")).toDouble());
        QCOMPARE(model.data(bench.siblingAtColumn(ResultsTreeModel::CkptReadColumn), ResultsTreeModel::MeanRole).toDouble(),
                 metric.value(QStringLiteral("load_checkpoint_io_mean_GB_per_second")).toDouble());
        QCOMPARE(model.data(bench.siblingAtColumn(ResultsTreeModel::CkptWriteColumn)).toString(),
                 QLocale().toString(metric.value(QStringLiteral("save_checkpoint_io_mean_GB_per_second")).toDouble(), 'f', 3));
        QCOMPARE(model.data(bench.siblingAtColumn(ResultsTreeModel::GibColumn)).toString(), QStringLiteral("—"));
        QCOMPARE(model.data(bench.siblingAtColumn(ResultsTreeModel::AuColumn)).toString(), QStringLiteral("—"));
        QCOMPARE(model.data(bench.siblingAtColumn(ResultsTreeModel::CountColumn)).toULongLong(), 1ull);
    }

    void checkStatesPropagate() {
        ResultsLibraryLoader loader;
        ResultsTreeModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        loadFixture(loader, model);
        QSignalSpy changed(&model, &ResultsTreeModel::checkedChanged);
        const QModelIndex bench = findKind(model, NodeKind::Benchmark);
        QVERIFY(model.setData(bench, Qt::Checked, Qt::CheckStateRole));
        QCOMPARE(changed.count(), 1);
        // Children follow, the parent is checked or partially checked, the compare list holds the benchmark.
        const QModelIndex run = model.index(0, 0, bench);
        QCOMPARE(model.data(run, Qt::CheckStateRole).toInt(), int(Qt::Checked));
        const int parentState = model.data(bench.parent(), Qt::CheckStateRole).toInt();
        QVERIFY(parentState == Qt::Checked || parentState == Qt::PartiallyChecked);
        auto checked = model.checkedNodes();
        QCOMPARE(checked.size(), std::size_t(1));
        QCOMPARE(checked.front(), model.node(bench));

        // Unchecking one run leaves the benchmark partial and the other runs as items.
        QVERIFY(model.setData(run, Qt::Unchecked, Qt::CheckStateRole));
        QCOMPARE(model.data(bench, Qt::CheckStateRole).toInt(), int(Qt::PartiallyChecked));
        checked = model.checkedNodes();
        QCOMPARE(int(checked.size()), model.rowCount(bench) - 1);
        for (const LibraryNode* n : checked) QCOMPARE(n->kind, NodeKind::Invocation);

        model.setAllChecked(false);
        QVERIFY(model.checkedNodes().empty());
        QCOMPARE(model.data(bench, Qt::CheckStateRole).toInt(), int(Qt::Unchecked));
    }

    // Issue 9 item 5: a benchmark row is named "system · workload · N accelerators" (not its folder), and two
    // workloads MLPerf calls by one name (unet3d_h100 with 146 MB and with 3 MB samples) get names that say
    // what differs — the same names the Compare page and the report use.
    void sameNameWorkloadsGetDistinctDefaultNames() {
        QTemporaryDir dir;
        QVERIFY(uitest::sameNameTwoWorkloads(dir.path()));
        ResultsLibraryLoader loader;
        ResultsTreeModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        loadFolder(loader, model, dir.path());
        QFile summary(dir.filePath(QStringLiteral("big/unet3d_h100/run-1/summary.json")));
        QVERIFY(summary.open(QIODevice::ReadOnly));
        const int accelerators = QJsonDocument::fromJson(summary.readAll()).object().value(QStringLiteral("num_accelerators")).toInt();
        QCOMPARE(accelerators, 2);
        // 146600628 and 3145728 bytes in MiB, one decimal, as the names write sizes.
        const QString bigSize = QString::number(146600628 / 1048576.0, 'f', 1) + QStringLiteral(" MiB/sample");
        const QString smallSize = QString::number(3145728 / 1048576.0, 'f', 1) + QStringLiteral(" MiB/sample");
        QCOMPARE(bigSize, QStringLiteral("139.8 MiB/sample"));
        QStringList benchmarks, workloads;
        std::function<void(const QModelIndex&)> walk = [&](const QModelIndex& parent) {
            for (int r = 0; r < model.rowCount(parent); ++r) {
                const QModelIndex i = model.index(r, 0, parent);
                const int kind = model.data(i, ResultsTreeModel::NodeKindRole).toInt();
                if (kind == static_cast<int>(NodeKind::Benchmark)) benchmarks << model.data(i).toString();
                if (kind == static_cast<int>(NodeKind::Workload)) workloads << model.data(i).toString();
                walk(i);
            }
        };
        walk({});
        benchmarks.sort();
        QCOMPARE(benchmarks, (QStringList{QStringLiteral("lab · unet3d_h100 · %1 · 2 accelerators").arg(bigSize),
                                          QStringLiteral("lab · unet3d_h100 · %1 · 2 accelerators").arg(smallSize)}));
        QCOMPARE(workloads.size(), 2);
        QVERIFY2(workloads[0] != workloads[1], qPrintable(workloads.join(QStringLiteral(" | "))));
        // The library's item names are what the row shows (compare tables and reports take those).
        for (const LibraryNode* n : loader.library()->nodes(NodeKind::Benchmark))
            QVERIFY(benchmarks.contains(QString::fromStdString(n->itemName)));
    }

    void checksSurviveAReload() {
        ResultsLibraryLoader loader;
        ResultsTreeModel model;
        loadFixture(loader, model);
        const QModelIndex bench = findKind(model, NodeKind::Benchmark);
        const QString label = model.data(bench).toString();
        model.setData(bench, Qt::Checked, Qt::CheckStateRole);
        QSignalSpy loaded(&loader, &ResultsLibraryLoader::loaded);
        loader.reload();
        QVERIFY(loaded.wait(testsupport::kHangMs));
        const auto checked = model.checkedNodes();
        QCOMPARE(checked.size(), std::size_t(1));
        QCOMPARE(QString::fromStdString(checked.front()->label), label);
    }

    void foldersPersistInSettings() {
        {
            ResultsLibraryLoader loader;
            ResultsTreeModel model;
            loadFixture(loader, model);
        }
        ResultsLibraryLoader restored;
        QSignalSpy loaded(&restored, &ResultsLibraryLoader::loaded);
        restored.restore();
        QCOMPARE(restored.folders().size(), 1);
        QVERIFY(loaded.wait(testsupport::kHangMs));
        QCOMPARE(restored.library()->imported().groups.size(), std::size_t(39));
    }

    void badFoldersAreRefusedWithAReason() {
        ResultsLibraryLoader loader;
        QString why;
        QVERIFY(!loader.addFolder(QStringLiteral("/nonexistent/trainio-results"), &why));
        QVERIFY2(why.contains(QStringLiteral("no such file")), qPrintable(why));
        QVERIFY(loader.folders().isEmpty());
        // A path through a regular file and a dangling symlink: nothing there to add.
        QTemporaryDir tmp;
        QFile plain(tmp.filePath(QStringLiteral("plain")));
        QVERIFY(plain.open(QIODevice::WriteOnly));
        plain.close();
        QVERIFY(!loader.addFolder(tmp.filePath(QStringLiteral("plain/results")), &why));
        QVERIFY2(why.contains(QStringLiteral("plain/results")) && why.contains(QStringLiteral("no such file")), qPrintable(why));
        QVERIFY(QFile::link(tmp.filePath(QStringLiteral("gone")), tmp.filePath(QStringLiteral("dangling"))));
        QVERIFY(!loader.addFolder(tmp.filePath(QStringLiteral("dangling")), &why));
        QVERIFY2(why.contains(QStringLiteral("dangling")) && why.contains(QStringLiteral("no such file")), qPrintable(why));
        QVERIFY(loader.folders().isEmpty());
    }

    void unreadableFolderIsRefusedEvenForRoot() {
        // A mode-000 folder, checked on a thread without the capabilities that let root ignore file
        // modes, so that the case runs as root too (CI's containers run as root).
        QTemporaryDir dir;
        QVERIFY(QFile::setPermissions(dir.path(), QFileDevice::Permissions{}));
        bool added = true;
        QString why, bypass;
        const QString dropError = onThreadWithoutFileModeOverride([&] {
            if (DIR* d = ::opendir(dir.path().toLocal8Bit().constData())) {
                ::closedir(d);
                bypass = QStringLiteral("opendir() of a mode-000 folder succeeded without CAP_DAC_OVERRIDE/READ_SEARCH");
                return;
            }
            ResultsLibraryLoader loader; // lives on this thread; a refused folder starts nothing
            added = loader.addFolder(dir.path(), &why);
        });
        QFile::setPermissions(dir.path(), QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ExeOwner);
        QVERIFY2(dropError.isEmpty(), qPrintable(dropError));
        if (!bypass.isEmpty()) QSKIP(qPrintable(QStringLiteral("this file system ignores file modes: ") + bypass));
        QVERIFY(!added);
        QVERIFY2(why.contains(dir.path()) && why.contains(QStringLiteral("permission denied")), qPrintable(why));
    }

    void hostileFilesAreListedNotFatal() {
        QTemporaryDir dir;
        const QString run = dir.filePath(QStringLiteral("runs/run-1"));
        QVERIFY(QDir().mkpath(run));
        QFile broken(run + QStringLiteral("/summary.json"));
        QVERIFY(broken.open(QIODevice::WriteOnly));
        broken.write("{ \"metric\": [[[[[[ not json");
        broken.close();
        ResultsLibraryLoader loader;
        ResultsTreeModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QObject::connect(&loader, &ResultsLibraryLoader::loaded, &model, &ResultsTreeModel::setLibrary);
        QSignalSpy loaded(&loader, &ResultsLibraryLoader::loaded);
        QVERIFY(loader.addFolder(dir.path()));
        QVERIFY(loaded.wait(testsupport::kHangMs));
        QCOMPARE(loader.library()->imported().skipped.size(), std::size_t(1));
        QCOMPARE(model.rowCount(), 0);
    }
};

QTEST_MAIN(TestResultsTreeModel)
#include "tst_results_tree_model.moc"
