// Page 4: the results library — the folders it is made of, the tree with status badges, aggregates,
// spreads and rule badges, the details of the selected node (a system's per-workload summary, a
// workload's best passing benchmark, descriptions and notes), label editing, and the files the import
// had to skip.
#pragma once

#include "widgets/notification_panel.h"
#include "library/results_library_loader.h"

#include <QWidget>

class QLabel;
class QListWidget;
class QPushButton;
class QTextBrowser;
class QTreeView;
class QTreeWidget;

namespace trainio::ui {

class ResultsTreeModel;

class ResultsPage final : public QWidget {
    Q_OBJECT
public:
    ResultsPage(ResultsLibraryLoader* loader, ResultsTreeModel* model, QWidget* parent = nullptr);

    QTreeView* tree() const { return tree_; }
    QTreeWidget* skippedPanel() const { return skipped_; }

    QPushButton* labelsButton() const { return labels_; }

public slots:
    void addFolderWithDialog();
    bool addFolder(const QString& path);
    // Opens the label dialog for the current system, benchmark or invocation; saving reloads the library.
    void editLabels();

signals:
    void notify(trainio::ui::NotificationPanel::Severity severity, const QString& text);

protected:
    void dragEnterEvent(QDragEnterEvent* event) override;
    void dropEvent(QDropEvent* event) override;

private:
    void onLoaded();
    void fitNameColumn();
    QList<QStringList> expandedPaths_; // rows open before the model's last reset, as label paths
    QStringList selectedPath_;
    void reportImport(const QString& folder, const ResultsLibraryLoader::FolderCount& count);
    void showDetails();
    void updateLabelsButton();

    ResultsLibraryLoader* loader_;
    ResultsTreeModel* model_;
    QTreeView* tree_;
    QListWidget* folders_;
    QTreeWidget* skipped_;
    QTextBrowser* details_;
    QLabel* summary_;
    QPushButton* labels_;
};

} // namespace trainio::ui
