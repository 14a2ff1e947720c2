// Importing into the results library from the Results page: every import says what it found in the
// folder just added (invocations, groups, skipped files), a folder without results says so, and one
// folder cannot be added twice under another spelling (trailing slash, symlink, "..", a folder inside).
#include "gui_test_support.h"
#include "testsupport.h"
#include "library/results_library_loader.h"
#include "library/results_page.h"
#include "models/results_tree_model.h"

#include <QApplication>
#include <QFontMetrics>
#include <QHash>

#include <functional>
#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QFileInfo>
#include <QSettings>
#include <QSignalSpy>
#include <QTest>
#include <QTreeView>

using namespace trainio::ui;
using Severity = NotificationPanel::Severity;

namespace {

// Copies a folder tree (files only, as the fixture holds).
bool copyTree(const QString& from, const QString& to) {
    QDirIterator it(from, QDir::Files, QDirIterator::Subdirectories);
    while (it.hasNext()) {
        const QString file = it.next();
        const QString target = QDir(to).filePath(QDir(from).relativeFilePath(file));
        if (!QDir().mkpath(QFileInfo(target).path()) || !QFile::copy(file, target)) return false;
    }
    return true;
}

// Writes `bytes` to `path`, creating its folders.
bool writeFile(const QString& path, const QByteArray& bytes) {
    QFile f(path);
    return QDir().mkpath(QFileInfo(path).path()) && f.open(QIODevice::WriteOnly) && f.write(bytes) == bytes.size();
}

} // namespace

class TestLibraryImport : public QObject {
    Q_OBJECT
    QTemporaryDir settingsDir_;
    // FIXTURES.md: 39 workload groups, 195 runs (one summary.json each, no host folders).
    const QString fixture_ = QStringLiteral(TRAINIO_TEST_DATA "/mlperf-storage-v1.0");
    // One of its groups: Micron's cosmoflow on h100, runs run1 … run5.
    const QString oneGroup_ = fixture_ + QStringLiteral("/Closed/Micron/results/Micron_9550_Gen5_Performance_NVMe/cosmoflow/h100");

    struct Page {
        ResultsLibraryLoader loader;
        ResultsTreeModel model;
        ResultsPage page{&loader, &model};
        QList<std::pair<Severity, QString>> notes;
        Page() {
            QObject::connect(&loader, &ResultsLibraryLoader::loaded, &model, &ResultsTreeModel::setLibrary);
            QObject::connect(&page, &ResultsPage::notify, &page, [this](Severity s, const QString& t) { notes.append({s, t}); });
        }
        // Adds through the page, as the button and drag-and-drop do, and waits for the import.
        bool add(const QString& path) {
            QSignalSpy imported(&loader, &ResultsLibraryLoader::folderImported);
            if (!page.addFolder(path)) return false;
            return imported.wait(testsupport::kHangMs) || imported.count() > 0;
        }
        QString last(Severity s) const {
            for (auto it = notes.rbegin(); it != notes.rend(); ++it)
                if (it->first == s) return it->second;
            return {};
        }
    };

private slots:
    void initTestCase() { uitest::isolateSettings(settingsDir_); }
    void init() { QSettings().clear(); }

    void importSaysWhatTheFolderHeld() {
        Page p;
        QVERIFY(p.add(fixture_));
        const QString fixture = QFileInfo(fixture_).canonicalFilePath();
        QCOMPARE(p.last(Severity::Info), QStringLiteral("Imported 195 invocations in 39 groups from %1; 0 files skipped").arg(fixture));

        // A second folder: the count is of that folder, not of the whole library.
        QTemporaryDir second;
        QVERIFY(copyTree(oneGroup_, second.filePath(QStringLiteral("cosmoflow"))));
        QVERIFY(writeFile(second.filePath(QStringLiteral("broken/run1/summary.json")), "{ \"metric\": "));
        QVERIFY(p.add(second.path()));
        QCOMPARE(p.last(Severity::Info),
                 QStringLiteral("Imported 5 invocations in 1 group from %1; 1 file skipped").arg(QFileInfo(second.path()).canonicalFilePath()));
        QCOMPARE(p.loader.folders().size(), 2);
    }

    void folderWithoutResultsSaysSo() {
        Page p;
        QTemporaryDir empty;
        QVERIFY(writeFile(empty.filePath(QStringLiteral("notes.txt")), "no results here\n"));
        QVERIFY(p.add(empty.path()));
        QCOMPARE(p.last(Severity::Warning),
                 QStringLiteral("No DLIO / TrainIO / MLPerf results found in %1; it is not kept in the library's folders")
                     .arg(QFileInfo(empty.path()).canonicalFilePath()));
        QVERIFY(p.last(Severity::Info).isEmpty()); // no "imported 0 invocations" beside it
        // Issue 21: an empty folder does not stay in the library's list, here or in the next session.
        QVERIFY2(!p.loader.folders().contains(QFileInfo(empty.path()).canonicalFilePath()), qPrintable(p.loader.folders().join(QLatin1Char(';'))));
        QVERIFY(!QSettings().value(QStringLiteral("library/folders")).toStringList().contains(QFileInfo(empty.path()).canonicalFilePath()));

        // A folder whose only summary cannot be read holds results that failed to import: it says that.
        QTemporaryDir damaged;
        QVERIFY(writeFile(damaged.filePath(QStringLiteral("run1/summary.json")), "["));
        QVERIFY(p.add(damaged.path()));
        QCOMPARE(p.last(Severity::Warning), QStringLiteral("Nothing imported from %1: 1 file skipped (see Results → Import problems)")
                                                .arg(QFileInfo(damaged.path()).canonicalFilePath()));
    }

    // Issue 21: a parent folder of a library folder re-adds the child's invocations: the message says they
    // were already in the library (not "Imported 5 invocations", and not "0 duplicates dropped").
    void parentFolderSaysWhatWasAlreadyKnown() {
        Page p;
        QTemporaryDir dir;
        QVERIFY(copyTree(oneGroup_, dir.filePath(QStringLiteral("lab/cosmoflow"))));
        QVERIFY(copyTree(oneGroup_, dir.filePath(QStringLiteral("lab-new/cosmoflow"))));
        QVERIFY(p.add(dir.filePath(QStringLiteral("lab/cosmoflow"))));
        QVERIFY(p.last(Severity::Info).startsWith(QStringLiteral("Imported 5 invocations")));
        // The parent: the 5 again. (Its sibling lab-new is another folder: not under it.)
        QVERIFY(p.add(dir.filePath(QStringLiteral("lab"))));
        QCOMPARE(p.last(Severity::Info), QStringLiteral("Added %1: 0 new invocations, 5 already in the library; 0 files skipped")
                                             .arg(QFileInfo(dir.filePath(QStringLiteral("lab"))).canonicalFilePath()));
        // A parent of both: the other 5 are new.
        QVERIFY(p.add(dir.path()));
        QCOMPARE(p.last(Severity::Info), QStringLiteral("Added %1: 5 new invocations, 5 already in the library; 0 files skipped")
                                             .arg(QFileInfo(dir.path()).canonicalFilePath()));
    }

    // Issue 21: a new library (after each run, each added folder) keeps the rows the user opened and the
    // one selected; before, the tree fell back to two levels and lost the selection.
    void treeKeepsExpansionAndSelectionAcrossReloads() {
        Page p;
        QVERIFY(p.add(fixture_));
        QTreeView* tree = p.page.tree();
        // Down to a benchmark's invocations: system → workload → benchmark, opened, an invocation selected.
        QModelIndex sys = p.model.index(0, 0), wl, bench, inv;
        QVERIFY(sys.isValid());
        wl = p.model.index(0, 0, sys);
        bench = p.model.index(0, 0, wl);
        QVERIFY(wl.isValid() && bench.isValid() && p.model.rowCount(bench) > 0);
        inv = p.model.index(p.model.rowCount(bench) - 1, 0, bench);
        tree->expand(bench);
        tree->collapse(p.model.index(p.model.rowCount() - 1, 0)); // one the user closed (the last system)
        const bool lastSystemIsFirst = p.model.rowCount() == 1;
        tree->setCurrentIndex(inv);
        const QStringList path = {p.model.data(sys).toString(), p.model.data(wl).toString(), p.model.data(bench).toString(),
                                  p.model.data(inv).toString()};
        QSignalSpy loaded(&p.loader, &ResultsLibraryLoader::loaded);
        p.loader.reload(); // what a finished run does
        QVERIFY(uitest::received(loaded, testsupport::kHangMs));
        const QModelIndex current = tree->currentIndex();
        QVERIFY(current.isValid());
        QStringList now;
        for (QModelIndex i = current; i.isValid(); i = i.parent()) now.prepend(p.model.data(p.model.index(i.row(), 0, i.parent())).toString());
        QCOMPARE(now, path);
        QVERIFY(tree->isExpanded(current.parent())); // the benchmark, three levels down
        if (!lastSystemIsFirst) QVERIFY(!tree->isExpanded(p.model.index(p.model.rowCount() - 1, 0)));
    }

    // Issue 21: the Result column never hides what tells siblings apart. With both fixtures in the
    // library, at the window's usual size, the names as drawn (elided to the room the column gives them)
    // differ between any two siblings; the full name is in the tooltip.
    void resultNamesStayDistinctAsDrawn() {
        Page p;
        QVERIFY(p.add(fixture_));
        QVERIFY(p.add(QStringLiteral(TRAINIO_TEST_DATA "/mlperf-storage-v3.0")));
        p.page.resize(1440, 800);
        p.page.show();
        QVERIFY(QTest::qWaitForWindowExposed(&p.page));
        QTreeView* tree = p.page.tree();
        // Systems, workloads and benchmarks in view (the levels whose names a user tells apart at a glance).
        tree->expandToDepth(1);
        QApplication::processEvents();
        const QFontMetrics fm(tree->font());
        int checked = 0;
        std::function<void(const QModelIndex&)> walk = [&](const QModelIndex& parent) {
            if (parent.isValid() && !tree->isExpanded(parent)) return;
            QHash<QString, QString> drawn; // as drawn → full name
            for (int r = 0; r < p.model.rowCount(parent); ++r) {
                const QModelIndex i = p.model.index(r, 0, parent);
                const QString full = p.model.data(i).toString();
                // The room for the text: the cell without the check box, the icon and the margins.
                const int room = tree->visualRect(i).width() - 52;
                const QString shown = fm.elidedText(full, tree->textElideMode(), room);
                QVERIFY2(!drawn.contains(shown) || drawn.value(shown) == full,
                         qPrintable(QStringLiteral("\"%1\" and \"%2\" both drawn as \"%3\"").arg(drawn.value(shown), full, shown)));
                drawn.insert(shown, full);
                QVERIFY(p.model.data(i, Qt::ToolTipRole).toString().contains(full.toHtmlEscaped()));
                ++checked;
                walk(i);
            }
        };
        walk({});
        QVERIFY(checked > 50);
    }

    void sameFolderCannotBeAddedTwice() {
        Page p;
        QTemporaryDir dir;
        QVERIFY(copyTree(oneGroup_, dir.filePath(QStringLiteral("results/cosmoflow"))));
        const QString results = dir.filePath(QStringLiteral("results"));
        QVERIFY(p.add(results));
        QVERIFY(QFile::link(results, dir.filePath(QStringLiteral("link"))));
        QVERIFY(QDir().mkpath(dir.filePath(QStringLiteral("other"))));
        const QStringList spellings = {results + QLatin1Char('/'), dir.filePath(QStringLiteral("link")),
                                       dir.filePath(QStringLiteral("other/../results")), results + QStringLiteral("/./")};
        for (const QString& again : spellings) {
            QString why;
            QVERIFY2(!p.loader.addFolder(again, &why), qPrintable(again));
            QVERIFY2(why.contains(QStringLiteral("already in the library")), qPrintable(why));
            // Through the page the user reads it.
            p.notes.clear();
            QVERIFY(!p.page.addFolder(again));
            QVERIFY2(p.last(Severity::Error).contains(QStringLiteral("already in the library")), qPrintable(p.last(Severity::Error)));
        }
        // A folder inside one of the library's folders adds nothing new either.
        QString why;
        QVERIFY(!p.loader.addFolder(dir.filePath(QStringLiteral("results/cosmoflow/runs")), &why));
        QVERIFY2(why.contains(QStringLiteral("already in the library")) && why.contains(QFileInfo(results).canonicalFilePath()), qPrintable(why));
        QCOMPARE(p.loader.folders().size(), 1);
        // A sibling whose name starts the same is another folder.
        QVERIFY(copyTree(oneGroup_, dir.filePath(QStringLiteral("results-2/cosmoflow"))));
        QVERIFY(p.add(dir.filePath(QStringLiteral("results-2"))));
        QCOMPARE(p.loader.folders().size(), 2);
    }

    void restoredSettingsHoldEachFolderOnce() {
        QTemporaryDir dir;
        QSettings().setValue(QStringLiteral("library/folders"), QStringList{dir.path(), dir.path() + QLatin1Char('/'),
                                                                           dir.path() + QStringLiteral("/.")});
        ResultsLibraryLoader loader;
        loader.restore();
        QCOMPARE(loader.folders(), QStringList{QFileInfo(dir.path()).canonicalFilePath()});
    }
};

QTEST_MAIN(TestLibraryImport)
#include "tst_library_import.moc"
