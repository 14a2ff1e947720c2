// The folders the results library is made of: kept in QSettings, imported with core's importResults in
// a worker thread (a large tree never freezes the window), handed to the GUI as one immutable
// ResultsLibrary. A generation counter drops an import overtaken by a newer one. What a run just wrote
// joins the library from memory (addWritten): the folder is not imported again.
#pragma once

// moc (Qt 6.4) cannot parse <compare>/<concepts>, which core's aggregate headers pull in; it needs
// only the names, so it skips them.
#ifndef Q_MOC_RUN
#include "aggregate/results_library.h"
#include "store/written_files.h"
#endif

#include <QObject>
#include <QStringList>

#include <filesystem>
#include <set>

#include <atomic>
#include <functional>
#include <memory>
#include <thread>

namespace trainio::ui {

class ResultsLibraryLoader final : public QObject {
    Q_OBJECT
public:
    explicit ResultsLibraryLoader(QObject* parent = nullptr);
    ~ResultsLibraryLoader() override;

    const QStringList& folders() const { return folders_; }
    std::shared_ptr<const aggregate::ResultsLibrary> library() const { return library_; }
    bool isLoading() const { return loading_; }

    // Adds a folder (or a summary.json) and re-imports; when that import is done, folderImported()
    // tells what it found there. Returns false with *why set when the path does not exist, cannot be
    // read, or is already in the library (the same folder by any spelling — trailing slash, symlink,
    // "..": canonical paths are compared — or a folder inside one of the library's folders); the
    // folder is then not added.
    bool addFolder(const QString& path, QString* why = nullptr);
    // The library folder that holds `path` (itself, or a folder above it), or an empty string.
    QString folderHolding(const QString& path) const;
    void removeFolder(const QString& path);
    void setFolders(const QStringList& folders); // replaces the list and re-imports
    void reload();
    // A folder a run just wrote, with what it wrote held in memory (RunFinish::written): its records join
    // the library on a worker without the folder being read again — made with the library folder that
    // holds it (results_import.h importWritten) and added to the library (ResultsLibrary::withAdded). A
    // folder no library folder holds is added to the list first (folderImported() tells what it holds);
    // anything else in it that the run did not write is read from the disk, the run's files from memory.
    // When the records cannot be added exactly (they join a group of the library), the library folders are
    // imported again, the run's files still from memory. Returns false with *why set as addFolder does.
    bool addWritten(const QString& folder, std::shared_ptr<const trainio::store::WrittenFiles> written, QString* why = nullptr);

    // QSettings "library/folders".
    void restore();
    void save() const;

    // What one import root holds within an imported library.
    struct FolderCount {
        std::size_t invocations = 0; // measured and warm-up invocations
        std::size_t groups = 0;      // workload groups with at least one of them
        std::size_t skipped = 0;     // files the import had to skip
        std::size_t known = 0;       // of `invocations`, those the library held before the folder was added
                                     // (a parent folder re-adding a child folder's results)
        bool dropped = false;        // it held nothing (no result, no skipped file): not kept in the list
    };
    // `known`: summary files the library held before (their invocations count as already known).
    static FolderCount countIn(const aggregate::ImportResult& imported, const QString& folder,
                               const std::set<std::filesystem::path>& known = {});

signals:
    void loadingStarted();
    void loaded(std::shared_ptr<const trainio::aggregate::ResultsLibrary> library);
    void foldersChanged(const QStringList& folders);
    // After the import that followed addFolder(folder).
    void folderImported(const QString& folder, const trainio::ui::ResultsLibraryLoader::FolderCount& count);

private:
    void joinFinishedWorkers();
    // Why `path` cannot join the list ("" when it can).
    QString refusal(const QString& path) const;
    // Appends a canonical folder to the list (counted by folderImported() after the next library lands).
    void appendFolder(const QString& added);
    // A run's records to add on top of the library that lands next (or of the current one).
    struct WrittenAdd {
        std::filesystem::path root;                           // the library folder holding the run's folder
        std::shared_ptr<const trainio::store::WrittenFiles> written;
        bool fresh = false;    // `root` is the run's folder, new to the library: walked (the run's files from memory)
        bool overlaps = false; // `root` holds other library folders: the folders are imported again
    };
    void startAdds(std::vector<WrittenAdd> adds);
    // Makes a library on a worker thread (`make`: never on the GUI thread) and lands it.
    void startWorker(std::function<std::shared_ptr<const aggregate::ResultsLibrary>()> make);
    // A library made by a worker of `generation`, handed to the GUI (dropped when a newer one was asked for).
    void land(std::shared_ptr<const aggregate::ResultsLibrary> lib, quint64 generation);

    QStringList folders_;
    QStringList justAdded_; // reported by folderImported() once an import that includes them lands
    std::set<std::filesystem::path> knownBefore_; // summary files in the library when a folder was added
    std::shared_ptr<const aggregate::ResultsLibrary> library_;
    struct Worker {
        std::thread thread;
        std::shared_ptr<std::atomic<bool>> done;
    };
    std::vector<Worker> workers_;
    std::vector<WrittenAdd> pendingAdds_; // arrived while a library was being made
    quint64 generation_ = 0;
    bool loading_ = false;
};

} // namespace trainio::ui
