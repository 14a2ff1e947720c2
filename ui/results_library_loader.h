// The folders the results library is made of: kept in QSettings, imported with core's importResults in
// a worker thread (a large tree never freezes the window), handed to the GUI as one immutable
// ResultsLibrary. A generation counter drops an import overtaken by a newer one.
#pragma once

// moc (Qt 6.4) cannot parse <compare>/<concepts>, which core's aggregate headers pull in; it needs
// only the names, so it skips them.
#ifndef Q_MOC_RUN
#include "aggregate/results_library.h"
#endif

#include <QObject>
#include <QStringList>

#include <atomic>
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

    // Adds a folder (or a summary.json) and re-imports. Returns false with *why set when the path does
    // not exist or cannot be read; the folder is then not added.
    bool addFolder(const QString& path, QString* why = nullptr);
    void removeFolder(const QString& path);
    void setFolders(const QStringList& folders); // replaces the list and re-imports
    void reload();

    // QSettings "library/folders".
    void restore();
    void save() const;

signals:
    void loadingStarted();
    void loaded(std::shared_ptr<const trainio::aggregate::ResultsLibrary> library);
    void foldersChanged(const QStringList& folders);

private:
    void joinFinishedWorkers();

    QStringList folders_;
    std::shared_ptr<const aggregate::ResultsLibrary> library_;
    struct Worker {
        std::thread thread;
        std::shared_ptr<std::atomic<bool>> done;
    };
    std::vector<Worker> workers_;
    quint64 generation_ = 0;
    bool loading_ = false;
};

} // namespace trainio::ui
