#include "results_library_loader.h"

#include "aggregate/results_import.h"

#include <QDir>
#include <QFileInfo>
#include <QMetaObject>
#include <QSettings>

#include <algorithm>
#include <utility>

namespace trainio::ui {

ResultsLibraryLoader::ResultsLibraryLoader(QObject* parent)
    : QObject(parent), library_(std::make_shared<aggregate::ResultsLibrary>()) {
    qRegisterMetaType<std::shared_ptr<const trainio::aggregate::ResultsLibrary>>();
}

ResultsLibraryLoader::~ResultsLibraryLoader() {
    for (auto& w : workers_)
        if (w.thread.joinable()) w.thread.join();
}

namespace {

namespace fs = std::filesystem;

// Lexical containment on canonical paths: both sides were resolved (symlinks, "..", trailing slash).
bool isWithin(const fs::path& p, const fs::path& root) {
    auto [r, q] = std::mismatch(root.begin(), root.end(), p.begin(), p.end());
    return r == root.end();
}

QString canonical(const QString& path) {
    const QString c = QFileInfo(path).canonicalFilePath();
    return c.isEmpty() ? QDir::cleanPath(QFileInfo(path).absoluteFilePath()) : c;
}

} // namespace

QString ResultsLibraryLoader::folderHolding(const QString& path) const {
    const fs::path p = canonical(path).toStdString();
    for (const QString& f : folders_)
        if (isWithin(p, canonical(f).toStdString())) return f;
    return {};
}

bool ResultsLibraryLoader::addFolder(const QString& path, QString* why) {
    const QFileInfo info(path);
    QString reason;
    if (path.trimmed().isEmpty()) reason = tr("no folder given");
    else if (!info.exists()) reason = tr("%1: no such file or folder").arg(path);
    else if (!info.isReadable() || (info.isDir() && !info.isExecutable())) reason = tr("%1: permission denied (not readable)").arg(path);
    else if (info.isDir() && !QDir(path).isReadable()) reason = tr("%1: the folder cannot be listed").arg(path);
    else if (const QString holder = folderHolding(path); !holder.isEmpty())
        reason = canonical(holder) == info.canonicalFilePath() ? tr("%1 is already in the library").arg(path)
                                                              : tr("%1 is already in the library (inside %2)").arg(path, holder);
    if (!reason.isEmpty()) {
        if (why) *why = reason;
        return false;
    }
    const QString added = info.canonicalFilePath();
    // What the library holds now: a parent folder of a library folder brings those results again, and the
    // message says they were already there rather than that they are new.
    for (const aggregate::InvocationRecord& r : library_->imported().runs)
        for (const fs::path& summary : r.summaryFiles) knownBefore_.insert(summary);
    folders_.append(added);
    justAdded_.append(added);
    emit foldersChanged(folders_);
    save();
    reload();
    return true;
}

ResultsLibraryLoader::FolderCount ResultsLibraryLoader::countIn(const aggregate::ImportResult& imported, const QString& folder,
                                                               const std::set<std::filesystem::path>& known) {
    const fs::path root = folder.toStdString();
    FolderCount c;
    std::vector<bool> counted(imported.runs.size(), false);
    for (std::size_t i = 0; i < imported.runs.size(); ++i) {
        bool wasKnown = false;
        for (const fs::path& summary : imported.runs[i].summaryFiles) {
            counted[i] = counted[i] || isWithin(summary, root);
            wasKnown = wasKnown || known.count(summary) > 0;
        }
        c.invocations += counted[i];
        c.known += counted[i] && wasKnown;
    }
    for (const aggregate::RunGroup& g : imported.groups) {
        bool any = false;
        for (const auto* list : {&g.runs, &g.warmups})
            for (std::size_t r : *list) any = any || (r < counted.size() && counted[r]);
        c.groups += any;
    }
    for (const aggregate::SkippedFile& s : imported.skipped) c.skipped += isWithin(s.path, root);
    return c;
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
            // With the per-step records of the complete runs, read here and not when a report is made.
            aggregate::ImportOptions options;
            options.stepDigests = true;
            lib = std::make_shared<aggregate::ResultsLibrary>(aggregate::importResults(roots, options));
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
                const std::set<fs::path> known = std::exchange(knownBefore_, {});
                for (const QString& f : std::exchange(justAdded_, {})) {
                    if (!folders_.contains(f)) continue;
                    FolderCount c = countIn(lib->imported(), f, known);
                    // A folder with nothing in it does not stay in the library's list (it would sit there
                    // looking like a source of results).
                    if (c.invocations == 0 && c.skipped == 0) {
                        folders_.removeAll(f);
                        c.dropped = true;
                        emit foldersChanged(folders_);
                        save();
                    }
                    emit folderImported(f, c);
                }
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
    // Settings written by older versions may hold one folder under two spellings.
    QStringList folders;
    for (const QString& f : s.value(QStringLiteral("library/folders")).toStringList())
        if (const QString c = canonical(f); !folders.contains(c)) folders.append(c);
    setFolders(folders);
}

void ResultsLibraryLoader::save() const {
    QSettings s;
    s.setValue(QStringLiteral("library/folders"), folders_);
}

} // namespace trainio::ui
