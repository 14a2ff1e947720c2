#include "results_library_loader.h"

#include "aggregate/results_import.h"

#include <QDir>
#include <QFileInfo>
#include <QMetaObject>
#include <QSettings>

namespace trainio::ui {

ResultsLibraryLoader::ResultsLibraryLoader(QObject* parent)
    : QObject(parent), library_(std::make_shared<aggregate::ResultsLibrary>()) {
    qRegisterMetaType<std::shared_ptr<const trainio::aggregate::ResultsLibrary>>();
}

ResultsLibraryLoader::~ResultsLibraryLoader() {
    for (auto& w : workers_)
        if (w.thread.joinable()) w.thread.join();
}

bool ResultsLibraryLoader::addFolder(const QString& path, QString* why) {
    const QFileInfo info(path);
    QString reason;
    if (path.trimmed().isEmpty()) reason = tr("no folder given");
    else if (!info.exists()) reason = tr("%1: no such file or folder").arg(path);
    else if (!info.isReadable() || (info.isDir() && !info.isExecutable())) reason = tr("%1: permission denied (not readable)").arg(path);
    else if (info.isDir() && !QDir(path).isReadable()) reason = tr("%1: the folder cannot be listed").arg(path);
    if (!reason.isEmpty()) {
        if (why) *why = reason;
        return false;
    }
    const QString canonical = info.canonicalFilePath();
    if (!folders_.contains(canonical)) {
        folders_.append(canonical);
        emit foldersChanged(folders_);
        save();
    }
    reload();
    return true;
}

void ResultsLibraryLoader::removeFolder(const QString& path) {
    if (folders_.removeAll(path) == 0) return;
    emit foldersChanged(folders_);
    save();
    reload();
}

void ResultsLibraryLoader::setFolders(const QStringList& folders) {
    folders_ = folders;
    emit foldersChanged(folders_);
    reload();
}

void ResultsLibraryLoader::reload() {
    joinFinishedWorkers();
    const quint64 generation = ++generation_;
    std::vector<std::filesystem::path> roots;
    for (const QString& f : folders_) roots.emplace_back(f.toStdString());
    loading_ = true;
    emit loadingStarted();
    auto done = std::make_shared<std::atomic<bool>>(false);
    std::thread t([this, roots, generation, done] {
        // importResults never throws for a bad file; anything else (bad_alloc…) becomes an empty library.
        std::shared_ptr<const aggregate::ResultsLibrary> lib;
        try {
            lib = std::make_shared<aggregate::ResultsLibrary>(aggregate::importResults(roots));
        } catch (const std::exception& e) {
            aggregate::ImportResult failed;
            failed.skipped.push_back({roots.empty() ? std::filesystem::path() : roots.front(), e.what()});
            lib = std::make_shared<aggregate::ResultsLibrary>(std::move(failed));
        }
        QMetaObject::invokeMethod(
            this,
            [this, lib, generation] {
                if (generation != generation_) return; // a newer import is under way
                loading_ = false;
                library_ = lib;
                emit loaded(lib);
            },
            Qt::QueuedConnection);
        done->store(true);
    });
    workers_.push_back(Worker{std::move(t), done});
}

void ResultsLibraryLoader::joinFinishedWorkers() {
    // Only workers that have finished are joined: the GUI thread never waits for an import.
    std::erase_if(workers_, [](Worker& w) {
        if (!w.done->load()) return false;
        w.thread.join();
        return true;
    });
}

void ResultsLibraryLoader::restore() {
    QSettings s;
    QStringList folders = s.value(QStringLiteral("library/folders")).toStringList();
    folders.removeDuplicates();
    setFolders(folders);
}

void ResultsLibraryLoader::save() const {
    QSettings s;
    s.setValue(QStringLiteral("library/folders"), folders_);
}

} // namespace trainio::ui
