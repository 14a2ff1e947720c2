// Labels in the GUI: the label dialog writes trainio_labels.json into the node's folder (a system's:
// into each of its items' folders), keeps what it was not asked to change, and the reloaded library
// shows the new system name and description; an MLPerf system described by systems/*.json says so.
// moc (Qt 6.4) cannot parse <compare>/<concepts>, which core's aggregate headers pull in.
#ifndef Q_MOC_RUN
#include "gui_test_support.h"
#include "testsupport.h"
#include "library/label_dialog.h"
#include "library/results_library_loader.h"

#include "aggregate/results_import.h"
#endif

#include <QJsonDocument>
#include <QJsonObject>
#include <QLineEdit>
#include <QLabel>
#include <QPlainTextEdit>
#include <QSignalSpy>
#include <QTest>

using namespace trainio;
using namespace trainio::ui;
using aggregate::LibraryNode;
using aggregate::NodeKind;

namespace {

const QString kDlioRun = QStringLiteral(TRAINIO_TEST_DATA "/dlio-runs/unet3d_256_np1");

QJsonObject readJson(const QString& path) {
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) return {};
    return QJsonDocument::fromJson(f.readAll()).object();
}

bool writeJson(const QString& path, const QJsonObject& o) {
    QFile f(path);
    return f.open(QIODevice::WriteOnly) && f.write(QJsonDocument(o).toJson()) > 0;
}

const LibraryNode* systemNamed(const aggregate::ResultsLibrary& lib, const std::string& name) {
    for (const LibraryNode* n : lib.nodes(NodeKind::System))
        if (n->label == name) return n;
    return nullptr;
}

} // namespace

class TestLabelDialog : public QObject {
    Q_OBJECT
    QTemporaryDir settingsDir_;

    std::shared_ptr<const aggregate::ResultsLibrary> load(ResultsLibraryLoader& loader, const QString& folder) {
        QSignalSpy loaded(&loader, &ResultsLibraryLoader::loaded);
        QString why;
        if (!loader.addFolder(folder, &why)) qWarning() << why;
        if (!QTest::qWaitFor([&] { return !loader.isLoading() && loaded.count() >= 1; }, 60000)) return nullptr;
        return loader.library();
    }

    // A copy of the DLIO run at `run`, imported from the folder above it.
    std::shared_ptr<const aggregate::ResultsLibrary> loadOneRun(ResultsLibraryLoader& loader, const QString& run) {
        if (!uitest::copyTree(kDlioRun, run)) return nullptr;
        return load(loader, QFileInfo(run).path());
    }

private slots:
    void initTestCase() { uitest::isolateSettings(settingsDir_); }

    void systemLabelsAreWrittenAndReadBack() {
        QTemporaryDir tmp;
        const QString results = tmp.filePath(QStringLiteral("results"));
        // Two lone runs in folders of their own: two items of one system.
        const QString runA = results + QStringLiteral("/a/unet3d-a");
        const QString runB = results + QStringLiteral("/b/unet3d-b");
        QVERIFY(uitest::copyTree(kDlioRun, runA));
        QVERIFY(uitest::copyTree(kDlioRun, runB));
        // Both already name a system; B has its own notes, which a system edit must not touch.
        QVERIFY(writeJson(runA + QStringLiteral("/trainio_labels.json"), {{QStringLiteral("system"), QStringLiteral("old-rig")}}));
        QVERIFY(writeJson(runB + QStringLiteral("/trainio_labels.json"),
                          {{QStringLiteral("system"), QStringLiteral("old-rig")}, {QStringLiteral("notes"), QStringLiteral("after firmware 1.2")}}));

        ResultsLibraryLoader loader;
        auto lib = load(loader, results);
        QVERIFY(lib);
        const LibraryNode* sys = systemNamed(*lib, "old-rig");
        QVERIFY2(sys, "the imported labels name the system old-rig");

        LabelDialog dialog(*lib, *sys);
        // Each run's benchmark folder, and the run folder itself: its own labels file would win otherwise.
        QCOMPARE(dialog.folders().size(), std::size_t(4));
        QVERIFY(!dialog.nameEdit()->isEnabled()); // names are per item
        const QString targets = dialog.findChild<QLabel*>(QStringLiteral("labelTargets"))->text();
        QStringList folders;
        for (const auto& f : dialog.folders()) folders << QString::fromStdString(f.string());
        folders.sort();
        QCOMPARE(folders, (QStringList{results + QStringLiteral("/a"), runA, results + QStringLiteral("/b"), runB}));
        for (const QString& f : folders) QVERIFY2(targets.contains(f), qPrintable(targets));
        QVERIFY(dialog.descriptionEdit()->placeholderText().contains(QStringLiteral("mount options")));
        dialog.systemEdit()->setText(QStringLiteral("lab-nvme-01"));
        dialog.descriptionEdit()->setPlainText(QStringLiteral("ext4 on 1x Samsung PM9A3 3.84 TB, noatime; 1 client"));
        QString error;
        QVERIFY2(dialog.write(&error), qPrintable(error));

        for (const QString& run : {runA, runB}) {
            const QJsonObject o = readJson(run + QStringLiteral("/trainio_labels.json"));
            QCOMPARE(o.value(QStringLiteral("system")).toString(), QStringLiteral("lab-nvme-01"));
            QCOMPARE(o.value(QStringLiteral("description")).toString(), QStringLiteral("ext4 on 1x Samsung PM9A3 3.84 TB, noatime; 1 client"));
        }
        QCOMPARE(readJson(runB + QStringLiteral("/trainio_labels.json")).value(QStringLiteral("notes")).toString(),
                 QStringLiteral("after firmware 1.2"));

        QSignalSpy loaded(&loader, &ResultsLibraryLoader::loaded);
        loader.reload();
        QVERIFY(loaded.wait(testsupport::kHangMs));
        lib = loader.library();
        QVERIFY(!systemNamed(*lib, "old-rig"));
        const LibraryNode* renamed = systemNamed(*lib, "lab-nvme-01");
        QVERIFY2(renamed, "the reloaded library shows the new system name");
        QCOMPARE(QString::fromStdString(renamed->description), QStringLiteral("ext4 on 1x Samsung PM9A3 3.84 TB, noatime; 1 client"));
    }

    void anItemNameIsWrittenIntoItsOwnFolder() {
        QTemporaryDir tmp;
        const QString run = tmp.filePath(QStringLiteral("results/unet3d-a"));
        ResultsLibraryLoader loader;
        const auto lib = loadOneRun(loader, run);
        QVERIFY(lib);
        const auto invocations = lib->nodes(NodeKind::Invocation);
        QCOMPARE(invocations.size(), std::size_t(1));
        LabelDialog dialog(*lib, *invocations.front());
        QCOMPARE(dialog.folders().size(), std::size_t(1));
        QCOMPARE(QString::fromStdString(dialog.folders().front().string()), run);
        dialog.nameEdit()->setText(QStringLiteral("page cache, 1 reader"));
        dialog.notesEdit()->setPlainText(QStringLiteral("before the tuning"));
        QString error;
        QVERIFY2(dialog.write(&error), qPrintable(error));
        const QJsonObject o = readJson(run + QStringLiteral("/trainio_labels.json"));
        QCOMPARE(o.value(QStringLiteral("name")).toString(), QStringLiteral("page cache, 1 reader"));
        QCOMPARE(o.value(QStringLiteral("notes")).toString(), QStringLiteral("before the tuning"));

        QSignalSpy loaded(&loader, &ResultsLibraryLoader::loaded);
        loader.reload();
        QVERIFY(loaded.wait(testsupport::kHangMs));
        const auto again = loader.library()->nodes(NodeKind::Invocation);
        QCOMPARE(again.size(), std::size_t(1));
        QCOMPARE(QString::fromStdString(again.front()->itemName), QStringLiteral("page cache, 1 reader"));
    }

    void aBadLabelsFileIsReportedNotOverwritten() {
        QTemporaryDir tmp;
        const QString run = tmp.filePath(QStringLiteral("results/unet3d-a"));
        ResultsLibraryLoader loader;
        const auto lib = loadOneRun(loader, run);
        QVERIFY(lib);
        LabelDialog dialog(*lib, *lib->nodes(NodeKind::Invocation).front());
        // A labels file that is not a JSON object: refused with the file's name, nothing overwritten.
        QFile bad(run + QStringLiteral("/trainio_labels.json"));
        QVERIFY(bad.open(QIODevice::WriteOnly));
        bad.write("[1, 2]");
        bad.close();
        dialog.notesEdit()->setPlainText(QStringLiteral("x"));
        QString error;
        QVERIFY(!dialog.write(&error));
        QVERIFY2(error.contains(QStringLiteral("trainio_labels.json")), qPrintable(error));
        QFile again(run + QStringLiteral("/trainio_labels.json"));
        QVERIFY(again.open(QIODevice::ReadOnly));
        QCOMPARE(again.readAll(), QByteArray("[1, 2]"));
    }

    void anMlperfSystemFileIsNamedAsTheSource() {
        const auto lib = std::make_shared<aggregate::ResultsLibrary>(
            aggregate::importResults({std::filesystem::path(TRAINIO_TEST_DATA "/mlperf-storage-v1.0/Closed/Micron")}));
        const auto systems = lib->nodes(NodeKind::System);
        QVERIFY(!systems.empty());
        LabelDialog dialog(*lib, *systems.front());
        const QString text = dialog.findChild<QLabel*>(QStringLiteral("labelTargets"))->text();
        QVERIFY2(text.contains(QStringLiteral("/systems/")) && text.contains(QStringLiteral("takes precedence")), qPrintable(text));
        QVERIFY(dialog.folders().size() >= 2); // one per benchmark of the system
    }
};

QTEST_MAIN(TestLabelDialog)
#include "tst_label_dialog.moc"
