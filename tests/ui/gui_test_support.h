// Shared helpers of the GUI suites: settings kept in a temporary folder (never the user's), the run's
// system-name prompt answered, and a tiny workload whose dataset is generated in a temporary folder.
#pragma once

#include "config/config_loader.h"
#include "workload/dataset_controller.h"
#include "library/results_library_loader.h"
#include "library/results_page.h"
#include "models/results_tree_model.h"
#include "run/run_page.h"

#include <QCoreApplication>
#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QFileInfo>
#include <QLabel>
#include <QLineEdit>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QTextBrowser>
#include <QTimer>
#include <QTreeView>

#include <algorithm>
#include <functional>

namespace uitest {

// Whether `spy` has (or gets within `ms`) its signal. A signal received before the call counts: QSignalSpy::wait
// alone would wait the whole time for another one, and a test of a run that ends fast then lasts minutes.
inline bool received(QSignalSpy& spy, int ms) { return !spy.isEmpty() || spy.wait(ms) || !spy.isEmpty(); }


inline void isolateSettings(const QTemporaryDir& dir) {
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName(QStringLiteral("TrainIO-tests"));
    QCoreApplication::setApplicationName(QStringLiteral("TrainIO-tests"));
    QSettings::setDefaultFormat(QSettings::IniFormat);
    QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, dir.path());
    QSettings().clear();
    // Runs without a system name ask for one in a modal dialog; suites not about that answer "none".
    trainio::ui::RunPage::setSystemPrompt([](QWidget*) { return std::optional<QString>(QString()); });
}

// Imports `folder` into `loader` (a window's libraryLoader(), or one of the test's own) and waits for the
// library; false when the import does not start or does not finish.
inline bool importFolder(trainio::ui::ResultsLibraryLoader* loader, const QString& folder) {
    QSignalSpy loaded(loader, &trainio::ui::ResultsLibraryLoader::loaded);
    if (!loader->addFolder(folder)) return false;
    return QTest::qWaitFor([&] { return !loader->isLoading() && loaded.count() >= 1; }, 120000);
}

// A GUI suite's folders: its own settings (isolated as above, for the whole suite) and a work folder.
struct TestFolders {
    QTemporaryDir settings;
    QTemporaryDir work;
    TestFolders() { isolateSettings(settings); }
};

// npz, `files` files of 64 KiB, batch 2, `epochs` epochs, `compute` s per step, data in dataDir.
inline trainio::WorkloadConfig tinyWorkload(const QString& dataDir, std::uint64_t files = 16, std::uint64_t epochs = 2,
                                            double compute = 0.002) {
    trainio::WorkloadConfig cfg = trainio::loadPreset("demo").config;
    cfg.dataset.dataFolder = dataDir.toStdString();
    cfg.dataset.format = trainio::DataFormat::Npz;
    cfg.dataset.numFilesTrain = files;
    cfg.dataset.numSamplesPerFile = 1;
    cfg.dataset.recordLength = 64 * 1024;
    cfg.dataset.recordLengthStdev = 0;
    cfg.reader.batchSize = 2;
    cfg.reader.readThreads = 1;
    cfg.train.epochs = epochs;
    cfg.train.computationTime = trainio::ComputeTime{};
    cfg.train.computationTime.mean = compute;
    return cfg;
}

// Generates cfg's dataset with the Data page's controller (what the Run page then reads); false when the
// generation fails or takes over a minute.
inline bool generateDataset(const trainio::WorkloadConfig& cfg) {
    trainio::ui::DatasetController data;
    QSignalSpy finished(&data, &trainio::ui::DatasetController::finished);
    if (!data.start(trainio::ui::DatasetController::Operation::Generate, cfg)) return false;
    return received(finished, 60000) && finished.first().at(1).toBool();
}

// Copies the folder `from` (with hidden folders such as DLIO's .hydra) to `to`; false on any failure.
inline bool copyTree(const QString& from, const QString& to) {
    if (!QDir().mkpath(to)) return false;
    QDirIterator it(from, QDir::Files | QDir::Hidden | QDir::NoDotAndDotDot, QDirIterator::Subdirectories);
    while (it.hasNext()) {
        const QString src = it.next();
        const QString dst = QDir(to).filePath(QDir(from).relativeFilePath(src));
        if (!QDir().mkpath(QFileInfo(dst).path()) || !QFile::copy(src, dst)) return false;
    }
    return true;
}

// What the Results page's details show for the first invocation of `folder` once it is imported (the
// node's cacheServed too: the flag that makes the bytes-source line bold). Empty text when the import
// or the selection fails; `why` says which.
struct InvocationDetails {
    QString text, html, why;
    bool cacheServed = false;
};

inline InvocationDetails invocationDetails(const QString& folder) {
    InvocationDetails out;
    trainio::ui::ResultsLibraryLoader loader;
    trainio::ui::ResultsTreeModel model;
    trainio::ui::ResultsPage page(&loader, &model);
    QObject::connect(&loader, &trainio::ui::ResultsLibraryLoader::loaded, &model, &trainio::ui::ResultsTreeModel::setLibrary);
    int loaded = 0;
    QObject::connect(&loader, &trainio::ui::ResultsLibraryLoader::loaded, [&loaded] { ++loaded; });
    if (!loader.addFolder(folder, &out.why)) return out;
    if (!QTest::qWaitFor([&] { return !loader.isLoading() && loaded >= 1; }, 60000)) {
        out.why = QStringLiteral("the import of %1 did not finish").arg(folder);
        return out;
    }
    // The invocation's row: depth-first to the first invocation node.
    std::function<QModelIndex(const QModelIndex&)> find = [&](const QModelIndex& parent) -> QModelIndex {
        for (int r = 0; r < model.rowCount(parent); ++r) {
            const QModelIndex i = model.index(r, 0, parent);
            if (model.node(i)->kind == trainio::aggregate::NodeKind::Invocation) return i;
            if (const QModelIndex d = find(i); d.isValid()) return d;
        }
        return {};
    };
    const QModelIndex inv = find({});
    auto* details = page.findChild<QTextBrowser*>(QStringLiteral("resultDetails"));
    if (!inv.isValid() || !details) {
        out.why = QStringLiteral("no invocation of %1 in the Results page").arg(folder);
        return out;
    }
    page.tree()->setCurrentIndex(inv);
    out.text = details->toPlainText();
    out.html = details->toHtml();
    out.cacheServed = model.node(inv)->cacheServed;
    return out;
}

// Two benchmarks of one system "lab" that MLPerf would both call unet3d_h100 (2 accelerators each): the
// published HPE Cray_C500_4xHDR200_1host runs (record_length 146600628 bytes in their config.yaml) in
// root/big/unet3d_h100, and a copy whose configs say 3 MiB samples (3145728 bytes) in root/small/unet3d_h100.
// Two workload identities under one name; false on any failure.
inline bool sameNameTwoWorkloads(const QString& root) {
    const QString published = QStringLiteral(TRAINIO_TEST_DATA "/mlperf-storage-v1.0/Closed/HPE/results/Cray_C500_4xHDR200_1host/unet3d_h100");
    const QString big = QDir(root).filePath(QStringLiteral("big/unet3d_h100"));
    const QString small = QDir(root).filePath(QStringLiteral("small/unet3d_h100"));
    if (!copyTree(published, big) || !copyTree(published, small)) return false;
    QDirIterator it(small, {QStringLiteral("config.yaml")}, QDir::Files, QDirIterator::Subdirectories);
    while (it.hasNext()) {
        QFile f(it.next());
        f.setPermissions(f.permissions() | QFileDevice::WriteOwner);
        if (!f.open(QIODevice::ReadWrite)) return false;
        QByteArray text = f.readAll();
        if (!text.contains("record_length: 146600628")) return false;
        text.replace("record_length: 146600628", "record_length: 3145728");
        if (!f.resize(0) || f.write(text) != text.size()) return false;
    }
    QFile labels(QDir(root).filePath(QStringLiteral("trainio_labels.json")));
    return labels.open(QIODevice::WriteOnly) && labels.write("{\"system\": \"lab\"}") > 0;
}

// Keystrokes as the event loop delivers them: each of `values` typed into `edit` over what it holds, one
// every `intervalMs`, from a timer (each key an edit). tst_responsive_window's burst and its benchmark.
class Typist {
public:
    Typist(QLineEdit* edit, QStringList values, int intervalMs = 30) : edit_(edit), values_(std::move(values)) {
        timer_.setInterval(intervalMs);
        QObject::connect(&timer_, &QTimer::timeout, [this] {
            if (done()) return timer_.stop();
            edit_->selectAll();
            QTest::keyClicks(edit_, values_[typed_++]);
        });
    }
    void start() { timer_.start(); }
    bool done() const { return typed_ == values_.size(); }

private:
    QLineEdit* edit_;
    QStringList values_;
    QTimer timer_;
    qsizetype typed_ = 0;
};

// Every visible label of `root` shows its whole text: as wide and as tall as its font needs, and inside
// the window. Returns what does not fit, empty when everything does.
inline QStringList clippedLabels(QWidget* root) {
    QStringList out;
    const QRect window = root->rect();
    for (QLabel* l : root->findChildren<QLabel*>()) {
        if (!l->isVisibleTo(root) || l->text().isEmpty()) continue;
        const QFontMetrics fm(l->font());
        const QRect room = l->contentsRect().adjusted(l->margin(), l->margin(), -l->margin(), -l->margin());
        // A label that wraps needs its longest word's width and its wrapped lines' height.
        int need = fm.horizontalAdvance(l->text()), needHeight = fm.height();
        if (l->wordWrap()) {
            need = 0;
            for (const QString& word : l->text().split(QLatin1Char(' '), Qt::SkipEmptyParts)) need = std::max(need, fm.horizontalAdvance(word));
            needHeight = fm.boundingRect(QRect(0, 0, room.width(), 100000), Qt::TextWordWrap, l->text()).height();
        }
        const QRect inWindow(l->mapTo(root, room.topLeft()), room.size());
        if (need > room.width() || needHeight > room.height() || !window.contains(inWindow))
            out << QStringLiteral("\"%1\" needs %2×%3 px at %4 px, has %5×%6 at (%7,%8)")
                       .arg(l->text())
                       .arg(need)
                       .arg(needHeight)
                       .arg(l->font().pixelSize())
                       .arg(room.width())
                       .arg(room.height())
                       .arg(inWindow.x())
                       .arg(inWindow.y());
    }
    return out;
}

} // namespace uitest
