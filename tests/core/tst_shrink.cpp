// "Shrink to fit this machine" (issue 8, quick start): the workload keeps its shape, num_files_train
// shrinks to what the disk (half its free space), a quarter of RAM and a one-minute epoch allow, the
// record length only when even one step per accelerator does not fit, and one step per accelerator
// always remains. Every expected number is worked out by hand in the comments.
#include "testsupport.h"

#include "config/shrink_to_fit.h"

#include <sys/statvfs.h>

#include <cmath>

using namespace trainio;

namespace {

constexpr double GiB = 1073741824.0;

// 1 MiB samples, 1 per file, batch 4, compute `compute` s per step, 10000 files.
WorkloadConfig mibWorkload(double compute) {
    WorkloadConfig c;
    c.dataset.format = DataFormat::Npz;
    c.dataset.numFilesTrain = 10000;
    c.dataset.numSamplesPerFile = 1;
    c.dataset.recordLength = 1048576;
    c.dataset.recordLengthStdev = 0;
    c.reader.batchSize = 4;
    c.reader.readThreads = 3;
    c.train.computationTime.mean = compute;
    return c;
}

MachineBudget budget(double freeBytes, double ramBytes, std::uint64_t accelerators) {
    MachineBudget b;
    b.freeBytes = freeBytes;
    b.ramBytes = ramBytes;
    b.accelerators = accelerators;
    return b; // 60 s per epoch, 1e9 B/s assumed read rate
}

} // namespace

class TestShrink : public QObject {
    Q_OBJECT
private slots:
    void oneMinuteEpochLimitsTheFiles() {
        // Budget min(100 GiB / 2, 8 GiB / 4) = 2 GiB → 2147483648 / (1048576 + 4096) = 2040 files by space.
        // A step: max(0.25 s compute, 2 × 4 × 1 MiB / 1e9 B/s = 0.0084 s) = 0.25 s → 240 steps in 60 s →
        // 240 × 4 × 2 = 1920 files by time, the smaller.
        const ShrinkResult r = shrinkToFit(mibWorkload(0.25), budget(100 * GiB, 8 * GiB, 2));
        QVERIFY(r.changed);
        QVERIFY(r.fits);
        QCOMPARE(r.filesBefore, 10000ull);
        QCOMPARE(r.filesAfter, 1920ull);
        QCOMPARE(r.config.dataset.numFilesTrain, 1920ull);
        QCOMPARE(r.config.dataset.recordLength, 1048576.0);
        QCOMPARE(r.stepsPerEpoch, 240ull);
        QCOMPARE(r.epochSeconds, 60.0);
        QCOMPARE(r.byteBudget, 2 * GiB);
        QVERIFY(r.summary.find("10000 → 1920") != std::string::npos);
    }

    void spaceLimitsTheFiles() {
        // A step is read-bound: 8 MiB / 1e9 B/s = 0.008388608 s → 7152 steps → 57216 files by time;
        // 2040 by space (above) wins. 2040 / 8 = 255 steps.
        const ShrinkResult r = shrinkToFit(mibWorkload(0.001), budget(100 * GiB, 8 * GiB, 2));
        QCOMPARE(r.filesAfter, 2040ull);
        QCOMPARE(r.stepsPerEpoch, 255ull);
        QVERIFY(r.datasetBytes <= r.byteBudget);
        // Half the free space binds when the disk is the smaller: 4 GiB free → 2 GiB, same 2040 files.
        QCOMPARE(shrinkToFit(mibWorkload(0.001), budget(4 * GiB, 64 * GiB, 2)).filesAfter, 2040ull);
    }

    void theShapeIsKept() {
        WorkloadConfig c = mibWorkload(0.25);
        c.dataset.numSamplesPerFile = 3;
        c.dataset.recordLengthStdev = 1000;
        c.dataset.format = DataFormat::Tfrecord;
        c.train.computationTime.distribution = ComputeDistribution::Normal;
        c.train.computationTime.stdev = 0.01;
        const ShrinkResult r = shrinkToFit(c, budget(100 * GiB, 8 * GiB, 2));
        const WorkloadConfig& s = r.config;
        QVERIFY(s.dataset.numFilesTrain < c.dataset.numFilesTrain);
        QCOMPARE(s.dataset.format, DataFormat::Tfrecord);
        QCOMPARE(s.dataset.numSamplesPerFile, 3ull);
        QCOMPARE(s.dataset.recordLength, c.dataset.recordLength);
        QCOMPARE(s.dataset.recordLengthStdev, 1000.0);
        QCOMPARE(s.reader.batchSize, 4ull);
        QCOMPARE(s.reader.readThreads, 3ull);
        QCOMPARE(s.train.computationTime.distribution, ComputeDistribution::Normal);
        QCOMPARE(s.train.computationTime.mean, 0.25);
        QCOMPARE(s.train.computationTime.stdev, 0.01);
        QCOMPARE(s.train.epochs, c.train.epochs);
    }

    void recordLengthShrinksOnlyWhenOneStepDoesNotFit() {
        // unet3d: 146600628-byte samples (stdev 68341808), batch 7, 8 accelerators → 56 files for one step,
        // 8.2 GB; the budget is 1 GiB free / 2 = 536870912 B. Record = floor(536870912 / 56 − 4096) =
        // 9582884 B; stdev × the same factor = floor(68341808 × 9582884 / 146600628) = 4467317 B.
        WorkloadConfig c = mibWorkload(0.323);
        c.dataset.recordLength = 146600628;
        c.dataset.recordLengthStdev = 68341808;
        c.reader.batchSize = 7;
        const ShrinkResult r = shrinkToFit(c, budget(1 * GiB, 64 * GiB, 8));
        QVERIFY(r.fits);
        QCOMPARE(r.filesAfter, 56ull);
        QCOMPARE(r.recordAfter, 9582884.0);
        QCOMPARE(r.config.dataset.recordLengthStdev, 4467317.0);
        QCOMPARE(r.stepsPerEpoch, 1ull);
        QVERIFY(r.datasetBytes <= r.byteBudget);
        QVERIFY(r.summary.find("record_length_bytes") != std::string::npos);
        // With room for it, the record length stays (only the files shrink).
        const ShrinkResult roomy = shrinkToFit(c, budget(1000 * GiB, 1000 * GiB, 8));
        QCOMPARE(roomy.recordAfter, 146600628.0);
    }

    void atLeastOneStepPerAccelerator() {
        // Compute 100 s per step: not even one step fits in 60 s, yet one step per accelerator remains:
        // ceil(4 × 16 / 1) = 64 files.
        const ShrinkResult slow = shrinkToFit(mibWorkload(100), budget(100 * GiB, 64 * GiB, 16));
        QCOMPARE(slow.filesAfter, 64ull);
        QCOMPARE(slow.stepsPerEpoch, 1ull);
        QVERIFY(slow.summary.find("compute time") != std::string::npos);
        // A config with too few files to run (3 files, batch 4, 2 accelerators) grows to ceil(8 / 1) = 8.
        WorkloadConfig few = mibWorkload(0.25);
        few.dataset.numFilesTrain = 3;
        QCOMPARE(shrinkToFit(few, budget(100 * GiB, 8 * GiB, 2)).filesAfter, 8ull);
        // Samples per file count: 5 per file, batch 4 × 3 accelerators = 12 samples → ceil(12 / 5) = 3 files.
        WorkloadConfig multi = mibWorkload(100);
        multi.dataset.numSamplesPerFile = 5;
        QCOMPARE(shrinkToFit(multi, budget(100 * GiB, 64 * GiB, 3)).filesAfter, 3ull);
    }

    void smallWorkloadIsLeftAlone() {
        WorkloadConfig c = mibWorkload(0.01);
        c.dataset.numFilesTrain = 16;
        const ShrinkResult r = shrinkToFit(c, budget(100 * GiB, 8 * GiB, 1));
        QVERIFY(!r.changed);
        QCOMPARE(r.filesAfter, 16ull);
        QVERIFY(r.summary.find("Already fits") != std::string::npos);
    }

    void nothingFitsIsSaidNotHidden() {
        const ShrinkResult r = shrinkToFit(mibWorkload(0.25), budget(64 * 1024, 8 * GiB, 2));
        QVERIFY(!r.fits);
        QVERIFY(!r.changed);
        QCOMPARE(r.config.dataset.numFilesTrain, 10000ull);
        QVERIFY(r.summary.find("Cannot shrink") != std::string::npos);
    }

    void measuresTheNearestExistingFolder() {
        QTemporaryDir tmp;
        const std::string missing = (tmp.path() + QStringLiteral("/not/yet/created")).toStdString();
        const MachineBudget b = measureMachine(missing, 0);
        QCOMPARE(b.accelerators, 1ull);
        // Asked of the folder itself (statvfs), as df does: a mount-table lookup (QStorageInfo) finds nothing
        // where /proc/self/mountinfo does not describe the root (chroots, some containers).
        struct statvfs st {};
        QCOMPARE(::statvfs(tmp.path().toLocal8Bit().constData(), &st), 0);
        const double expected = static_cast<double>(st.f_bavail) * static_cast<double>(st.f_frsize);
        QVERIFY2(expected > 0, "statvfs sees no free space in the temporary folder");
        QVERIFY2(std::fabs(b.freeBytes - expected) < 0.05 * expected + 64e6,
                 qPrintable(QStringLiteral("%1 vs %2").arg(b.freeBytes).arg(expected)));
        QVERIFY(b.ramBytes > 64e6);
    }
};

QTEST_GUILESS_MAIN(TestShrink)
#include "tst_shrink.moc"
