#include "library/results_library_loader.h"

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

QString ResultsLibraryLoader::refusal(const QString& path) const {
    const QFileInfo info(path);
    if (path.trimmed().isEmpty()) return tr("no folder given");
    if (!info.exists()) return tr("%1: no such file or folder").arg(path);
    if (!info.isReadable() || (info.isDir() && !info.isExecutable())) return tr("%1: permission denied (not readable)").arg(path);
    if (info.isDir() && !QDir(path).isReadable()) return tr("%1: the folder cannot be listed").arg(path);
    if (const QString holder = folderHolding(path); !holder.isEmpty())
        return canonical(holder) == info.canonicalFilePath() ? tr("%1 is already in the library").arg(path)
                                                            : tr("%1 is already in the library (inside %2)").arg(path, holder);
    return {};
}

void ResultsLibraryLoader::appendFolder(const QString& added) {
    // What the library holds now: a parent folder of a library folder brings those results again, and the
    // message says they were already there rather than that they are new.
    for (const aggregate::InvocationRecord& r : library_->imported().runs)
        for (const fs::path& summary : r.summaryFiles) knownBefore_.insert(summary);
    folders_.append(added);
    justAdded_.append(added);
    emit foldersChanged(folders_);
    save();
}

bool ResultsLibraryLoader::addFolder(const QString& path, QString* why) {
    if (const QString reason = refusal(path); !reason.isEmpty()) {
        if (why) *why = reason;
        return false;
    }
    appendFolder(QFileInfo(path).canonicalFilePath());
    reload();
    return true;
}

bool ResultsLibraryLoader::addWritten(const QString& path, std::shared_ptr<const store::WrittenFiles> written, QString* why) {
    if (!written) return addFolder(path, why);
    WrittenAdd add;
    add.written = std::move(written);
    QString holder = folderHolding(path);
    if (holder.isEmpty()) {
        if (const QString reason = refusal(path); !reason.isEmpty()) {
            if (why) *why = reason;
            return false;
        }
        holder = QFileInfo(path).canonicalFilePath();
        add.fresh = true;
        for (const QString& f : folders_) add.overlaps = add.overlaps || isWithin(canonical(f).toStdString(), holder.toStdString());
        appendFolder(holder);
    }
    add.root = holder.toStdString();
    if (loading_) pendingAdds_.push_back(std::move(add)); // on top of the library being made
    else startAdds({std::move(add)});
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

void ResultsLibraryLoader::startWorker(std::function<std::shared_ptr<const aggregate::ResultsLibrary>()> make) {
    joinFinishedWorkers();
    const quint64 generation = ++generation_;
    loading_ = true;
    emit loadingStarted();
    auto done = std::make_shared<std::atomic<bool>>(false);
    std::thread t([this, make = std::move(make), generation, done] {
        std::shared_ptr<const aggregate::ResultsLibrary> lib = make();
        QMetaObject::invokeMethod(this, [this, lib, generation] { land(lib, generation); }, Qt::QueuedConnection);
        done->store(true);
    });
    workers_.push_back(Worker{std::move(t), done});
}

void ResultsLibraryLoader::reload() {
    pendingAdds_.clear(); // what they wrote is on the disk this import reads
    std::vector<std::filesystem::path> roots;
    for (const QString& f : folders_) roots.emplace_back(f.toStdString());
    startWorker([roots]() -> std::shared_ptr<const aggregate::ResultsLibrary> {
        // importResults never throws for a bad file; anything else (bad_alloc…) becomes an empty library.
        try {
            // With the per-step records of the complete runs, read here and not when a report is made.
            aggregate::ImportOptions options;
            options.stepDigests = true;
            return std::make_shared<aggregate::ResultsLibrary>(aggregate::importResults(roots, options));
        } catch (const std::exception& e) {
            aggregate::ImportResult failed;
            failed.skipped.push_back({roots.empty() ? std::filesystem::path() : roots.front(), e.what()});
            return std::make_shared<aggregate::ResultsLibrary>(std::move(failed));
        }
    });
}

void ResultsLibraryLoader::startAdds(std::vector<WrittenAdd> adds) {
    std::vector<std::filesystem::path> roots;
    for (const QString& f : folders_) roots.emplace_back(f.toStdString());
    startWorker([base = library_, adds = std::move(adds), roots]() {
        std::shared_ptr<const aggregate::ResultsLibrary> lib = base;
        aggregate::ImportOptions options;
        options.stepDigests = true;
        for (const WrittenAdd& add : adds) {
            std::shared_ptr<const aggregate::ResultsLibrary> next;
            try {
                if (!add.overlaps) {
                    // The run's records, made from what it wrote: its folder is not read again.
                    aggregate::ImportResult records = add.fresh ? aggregate::importResults({add.root}, options, *add.written)
                                                                : aggregate::importWritten(add.root, *add.written, options);
                    next = lib->withAdded(std::move(records));
                }
                // They cannot be added as they are (they join a group of the library, or the folder holds
                // other library folders): the library folders again, the run's files from memory.
                if (!next) next = std::make_shared<aggregate::ResultsLibrary>(aggregate::importResults(roots, options, *add.written));
            } catch (const std::exception& e) {
                aggregate::ImportResult failed = lib->imported();
                failed.skipped.push_back({add.root, e.what()});
                next = std::make_shared<aggregate::ResultsLibrary>(std::move(failed));
            }
            lib = std::move(next);
        }
        return lib;
    });
}

void ResultsLibraryLoader::land(std::shared_ptr<const aggregate::ResultsLibrary> lib, quint64 generation) {
    if (generation != generation_) return; // a newer library is being made
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
    // Runs that ended while this library was being made join it now.
    if (!pendingAdds_.empty()) startAdds(std::exchange(pendingAdds_, {}));
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
