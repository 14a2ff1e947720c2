#include "results_page.h"

#include "results_library_loader.h"
#include "results_tree_model.h"

#include <QDir>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFileDialog>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QListWidget>
#include <QMimeData>
#include <QPushButton>
#include <QSplitter>
#include <QStyle>
#include <QTabWidget>
#include <QTextBrowser>
#include <QTreeView>
#include <QTreeWidget>
#include <QVBoxLayout>

#include <cmath>

namespace trainio::ui {

using aggregate::LibraryNode;
using aggregate::NodeKind;

ResultsPage::ResultsPage(ResultsLibraryLoader* loader, ResultsTreeModel* model, QWidget* parent)
    : QWidget(parent), loader_(loader), model_(model) {
    setAcceptDrops(true);
    auto* layout = new QVBoxLayout(this);
    auto* bar = new QHBoxLayout;
    auto* add = new QPushButton(style()->standardIcon(QStyle::SP_DirOpenIcon), tr("Add folder…"), this);
    add->setToolTip(tr("Import a TrainIO results folder or any DLIO / MLPerf Storage results tree "
                       "(or drag folders onto the window)"));
    auto* remove = new QPushButton(style()->standardIcon(QStyle::SP_DialogDiscardButton), tr("Remove folder"), this);
    auto* reload = new QPushButton(style()->standardIcon(QStyle::SP_BrowserReload), tr("Reload"), this);
    auto* checkAll = new QPushButton(tr("Check all"), this);
    auto* uncheckAll = new QPushButton(tr("Uncheck all"), this);
    for (QPushButton* b : {add, remove, reload, checkAll, uncheckAll}) bar->addWidget(b);
    summary_ = new QLabel(this);
    summary_->setObjectName(QStringLiteral("librarySummary"));
    bar->addWidget(summary_, 1);
    layout->addLayout(bar);

    auto* splitter = new QSplitter(Qt::Horizontal, this);
    tree_ = new QTreeView(splitter);
    tree_->setObjectName(QStringLiteral("resultsTree"));
    tree_->setModel(model_);
    tree_->setAlternatingRowColors(true);
    tree_->setUniformRowHeights(true);
    tree_->header()->setStretchLastSection(false);
    tree_->header()->setSectionResizeMode(ResultsTreeModel::NameColumn, QHeaderView::Interactive);
    tree_->header()->resizeSection(ResultsTreeModel::NameColumn, 290);
    for (int c = 1; c < ResultsTreeModel::ColumnCount; ++c)
        tree_->header()->setSectionResizeMode(c, QHeaderView::ResizeToContents);
    splitter->addWidget(tree_);

    auto* tabs = new QTabWidget(splitter);
    details_ = new QTextBrowser(tabs);
    details_->setObjectName(QStringLiteral("resultDetails"));
    details_->setOpenLinks(false);
    tabs->addTab(details_, tr("Details"));
    folders_ = new QListWidget(tabs);
    tabs->addTab(folders_, tr("Folders"));
    skipped_ = new QTreeWidget(tabs);
    skipped_->setObjectName(QStringLiteral("importProblems"));
    skipped_->setHeaderLabels({tr("Skipped file"), tr("Why")});
    skipped_->setRootIsDecorated(false);
    tabs->addTab(skipped_, tr("Import problems"));
    splitter->addWidget(tabs);
    splitter->setStretchFactor(0, 1);
    splitter->setStretchFactor(1, 0);
    splitter->setSizes({900, 420});
    layout->addWidget(splitter, 1);

    connect(add, &QPushButton::clicked, this, &ResultsPage::addFolderWithDialog);
    connect(remove, &QPushButton::clicked, this, [this] {
        if (QListWidgetItem* item = folders_->currentItem()) loader_->removeFolder(item->text());
        else emit notify(Severity::Info, tr("Select a folder in the Folders tab to remove it."));
    });
    connect(reload, &QPushButton::clicked, loader_, &ResultsLibraryLoader::reload);
    connect(checkAll, &QPushButton::clicked, this, [this] { model_->setAllChecked(true); });
    connect(uncheckAll, &QPushButton::clicked, this, [this] { model_->setAllChecked(false); });
    connect(loader_, &ResultsLibraryLoader::loadingStarted, this, [this] { summary_->setText(tr("Importing…")); });
    connect(loader_, &ResultsLibraryLoader::loaded, this, &ResultsPage::onLoaded);
    connect(loader_, &ResultsLibraryLoader::folderImported, this, &ResultsPage::reportImport);
    connect(loader_, &ResultsLibraryLoader::foldersChanged, this, [this](const QStringList& f) {
        folders_->clear();
        folders_->addItems(f);
    });
    connect(tree_->selectionModel(), &QItemSelectionModel::currentChanged, this, &ResultsPage::showDetails);
    connect(model_, &QAbstractItemModel::modelReset, this, [this] {
        details_->clear(); // they described a node of the previous library
    });
    folders_->addItems(loader_->folders());
    onLoaded();
}

void ResultsPage::addFolderWithDialog() {
    const QString dir = QFileDialog::getExistingDirectory(this, tr("Add a results folder"));
    if (!dir.isEmpty()) addFolder(dir);
}

bool ResultsPage::addFolder(const QString& path) {
    QString why;
    if (!loader_->addFolder(path, &why)) {
        emit notify(Severity::Error, tr("Cannot add results folder: %1").arg(why));
        return false;
    }
    summary_->setText(tr("Importing %1…").arg(QDir::toNativeSeparators(path)));
    return true;
}

void ResultsPage::reportImport(const QString& folder, const ResultsLibraryLoader::FolderCount& c) {
    const QString path = QDir::toNativeSeparators(folder);
    const QString skipped = tr("%1 %2 skipped").arg(c.skipped).arg(c.skipped == 1 ? tr("file") : tr("files"));
    if (c.invocations == 0) {
        // Results that could not be read (a failed run's folder, a damaged file) are not "no results".
        emit notify(Severity::Warning, c.skipped == 0 ? tr("No DLIO / TrainIO / MLPerf results found in %1").arg(path)
                                                      : tr("Nothing imported from %1: %2 (see Results → Import problems)").arg(path, skipped));
        return;
    }
    emit notify(Severity::Info, tr("Imported %1 %2 in %3 %4 from %5; %6")
                                    .arg(c.invocations)
                                    .arg(c.invocations == 1 ? tr("invocation") : tr("invocations"))
                                    .arg(c.groups)
                                    .arg(c.groups == 1 ? tr("group") : tr("groups"))
                                    .arg(path, skipped));
}

void ResultsPage::onLoaded() {
    const auto lib = loader_->library();
    if (!lib) return;
    const auto& imp = lib->imported();
    std::size_t runs = 0;
    for (const auto& g : imp.groups) runs += g.runs.size();
    summary_->setText(tr("%L1 summaries found · %L2 workload groups · %L3 measured runs · %L4 skipped")
                          .arg(imp.summariesFound)
                          .arg(imp.groups.size())
                          .arg(runs)
                          .arg(imp.skipped.size()));
    skipped_->clear();
    for (const auto& s : imp.skipped) {
        auto* item = new QTreeWidgetItem(skipped_, {QString::fromStdString(s.path.string()), QString::fromStdString(s.reason)});
        item->setToolTip(1, QString::fromStdString(s.reason));
    }
    skipped_->resizeColumnToContents(0);
    if (!imp.skipped.empty())
        emit notify(Severity::Warning, tr("%n file(s) could not be imported; see Results → Import problems.", nullptr,
                                          static_cast<int>(imp.skipped.size())));
    tree_->expandToDepth(1);
}

void ResultsPage::showDetails() {
    const LibraryNode* n = model_->node(tree_->currentIndex());
    if (!n || !tree_->currentIndex().isValid()) {
        details_->clear();
        return;
    }
    auto fmt = [](double v, int d) { return std::isfinite(v) ? QString::number(v, 'f', d) : QStringLiteral("—"); };
    auto row = [&](const QString& name, const aggregate::NodeMetric& m, int d) {
        return QStringLiteral("<tr><td>%1</td><td align=right>%2</td><td align=right>%3</td><td align=right>[%4, %5]</td><td align=right>%6</td></tr>")
            .arg(name, fmt(m.mean, d), fmt(m.stdev, d), fmt(m.ci95.low, d), fmt(m.ci95.high, d))
            .arg(m.n);
    };
    QString html = QStringLiteral("<h3>%1: %2</h3>").arg(QString::fromStdString(aggregate::nodeKindName(n->kind)),
                                                        QString::fromStdString(n->label).toHtmlEscaped());
    if (!n->path.empty()) html += QStringLiteral("<p><code>%1</code></p>").arg(QString::fromStdString(n->path.string()).toHtmlEscaped());
    html += QStringLiteral("<table cellspacing=4><tr><th align=left>metric</th><th>mean</th><th>stdev</th><th>95 % CI</th><th>n</th></tr>");
    html += row(tr("AU %"), n->au, 2) + row(tr("samples/s"), n->samplesPerSecond, 1) + row(tr("MiB/s"), n->mibPerSecond, 1);
    html += QStringLiteral("</table><p><i>%1</i></p>").arg(ResultsTreeModel::ruleText(*n));
    const auto lib = model_->library();
    if (n->group && lib) {
        const auto& agg = lib->aggregate(*n->group);
        html += tr("<p>Also: median %1 %, min %2 %, geometric mean %3 % (AU over runs).</p>")
                    .arg(fmt(agg.au.median.value, 2), fmt(agg.au.min.value, 2), fmt(agg.au.geomean.value, 2));
        if (agg.reportAgrees) html += *agg.reportAgrees ? tr("<p>The folder's mlperf_storage_report.json agrees with the runs.</p>")
                                                        : tr("<p><b>The folder's mlperf_storage_report.json disagrees with the runs.</b></p>");
        if (!agg.notes.empty()) {
            html += tr("<p>Notes:</p><ul>");
            for (const auto& note : agg.notes) html += QStringLiteral("<li>%1</li>").arg(QString::fromStdString(note).toHtmlEscaped());
            html += QStringLiteral("</ul>");
        }
    }
    const QStringList v = ResultsTreeModel::violations(*n);
    if (!v.isEmpty()) {
        html += tr("<p><b>Rule checks failed:</b></p><ul>");
        for (const QString& s : v) html += QStringLiteral("<li>%1</li>").arg(s.toHtmlEscaped());
        html += QStringLiteral("</ul>");
    } else if (n->badge.evaluated) {
        html += n->badge.passed ? tr("<p>Pass: every check passed.</p>") : tr("<p><b>Fail:</b> AU below the threshold.</p>");
    }
    details_->setHtml(html);
}

void ResultsPage::dragEnterEvent(QDragEnterEvent* event) {
    if (event->mimeData()->hasUrls()) event->acceptProposedAction();
}

void ResultsPage::dropEvent(QDropEvent* event) {
    for (const QUrl& url : event->mimeData()->urls())
        if (url.isLocalFile()) addFolder(url.toLocalFile());
    event->acceptProposedAction();
}

} // namespace trainio::ui
