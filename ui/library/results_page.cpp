#include "library/results_page.h"

#include "widgets/file_dialogs.h"
#include "widgets/one_line_label.h"

#include "library/label_dialog.h"
#include "library/results_library_loader.h"
#include "models/results_tree_model.h"

#include "trace/job_vs_replay.h"

#include <QDir>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFileDialog>

#include <functional>
#include <utility>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QListWidget>
#include <QMenu>
#include <QMimeData>
#include <QPushButton>
#include <QSplitter>
#include <QStyle>
#include <QTabWidget>
#include <QTextBrowser>
#include <QTreeView>
#include <QTreeWidget>
#include <QVBoxLayout>

#include <algorithm>
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
    labels_ = new QPushButton(tr("Labels…"), this);
    labels_->setObjectName(QStringLiteral("editLabels"));
    labels_->setToolTip(tr("Name and describe the selected system, benchmark or invocation (system name, the storage "
                           "under test, notes, item name); saved as trainio_labels.json beside the results"));
    for (QPushButton* b : {add, remove, reload, checkAll, uncheckAll, labels_}) bar->addWidget(b);
    summary_ = new OneLineLabel(this);
    summary_->setObjectName(QStringLiteral("librarySummary"));
    bar->addWidget(summary_, 1);
    layout->addLayout(bar);

    auto* splitter = new QSplitter(Qt::Horizontal, this);
    tree_ = new QTreeView(splitter);
    tree_->setObjectName(QStringLiteral("resultsTree"));
    tree_->setModel(model_);
    tree_->setAlternatingRowColors(true);
    tree_->setUniformRowHeights(true);
    tree_->setContextMenuPolicy(Qt::CustomContextMenu);
    tree_->header()->setStretchLastSection(false);
    tree_->header()->setSectionResizeMode(ResultsTreeModel::NameColumn, QHeaderView::Interactive);
    tree_->header()->resizeSection(ResultsTreeModel::NameColumn, 270);
    // Names that differ at their end ("…_1Client_A100", "…_1Client_H100") stay told apart: elided in the
    // middle, and the column widened to its names (fitNameColumn); the full name is in the tooltip.
    tree_->setTextElideMode(Qt::ElideMiddle);
    connect(tree_, &QTreeView::expanded, this, [this] { fitNameColumn(); });
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
    splitter->setSizes({1000, 360});
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
    connect(tree_->selectionModel(), &QItemSelectionModel::currentChanged, this, &ResultsPage::updateLabelsButton);
    connect(labels_, &QPushButton::clicked, this, &ResultsPage::editLabels);
    connect(tree_, &QTreeView::customContextMenuRequested, this, [this](const QPoint& pos) {
        const QModelIndex i = tree_->indexAt(pos);
        const LibraryNode* n = i.isValid() ? model_->node(i) : nullptr;
        if (!n || !LabelDialog::canEdit(*n)) return;
        tree_->setCurrentIndex(i);
        QMenu menu(this);
        menu.addAction(tr("Edit labels…"), this, &ResultsPage::editLabels);
        menu.exec(tree_->viewport()->mapToGlobal(pos));
    });
    // A new library (after every run, every added folder) resets the model: the rows the user had open
    // and the one selected come back, found by their labels from the top (issue 21: the tree collapsed
    // after each run).
    connect(model_, &QAbstractItemModel::modelAboutToBeReset, this, [this] {
        auto pathOf = [this](QModelIndex i) {
            QStringList path;
            for (; i.isValid(); i = i.parent()) path.prepend(model_->data(model_->index(i.row(), 0, i.parent())).toString());
            return path;
        };
        expandedPaths_.clear();
        std::function<void(const QModelIndex&)> walk = [&](const QModelIndex& parent) {
            for (int r = 0; r < model_->rowCount(parent); ++r) {
                const QModelIndex i = model_->index(r, 0, parent);
                if (!tree_->isExpanded(i)) continue;
                expandedPaths_.append(pathOf(i));
                walk(i);
            }
        };
        walk({});
        selectedPath_ = pathOf(tree_->currentIndex());
    });
    connect(model_, &QAbstractItemModel::modelReset, this, [this] {
        details_->clear(); // they described a node of the previous library
        updateLabelsButton();
        auto find = [this](const QStringList& path) {
            QModelIndex at;
            for (const QString& label : path) {
                QModelIndex next;
                for (int r = 0; r < model_->rowCount(at) && !next.isValid(); ++r)
                    if (model_->data(model_->index(r, 0, at)).toString() == label) next = model_->index(r, 0, at);
                if (!next.isValid()) return QModelIndex();
                at = next;
            }
            return at;
        };
        if (expandedPaths_.isEmpty() && selectedPath_.isEmpty()) { // nothing open yet: two levels
            tree_->expandToDepth(1);
            fitNameColumn();
            return;
        }
        for (const QStringList& path : std::as_const(expandedPaths_))
            if (const QModelIndex i = find(path); i.isValid()) tree_->expand(i);
        if (const QModelIndex i = find(selectedPath_); i.isValid()) {
            tree_->setCurrentIndex(i);
            tree_->scrollTo(i);
        }
        fitNameColumn();
    });
    updateLabelsButton();
    folders_->addItems(loader_->folders());
    onLoaded();
    tree_->expandToDepth(1);
}

void ResultsPage::fitNameColumn() {
    // As wide as the names shown need, never narrower than the user made it, at most half the tree.
    const int now = tree_->columnWidth(ResultsTreeModel::NameColumn);
    tree_->resizeColumnToContents(ResultsTreeModel::NameColumn);
    const int want = tree_->columnWidth(ResultsTreeModel::NameColumn);
    const int most = std::max(270, tree_->viewport()->width() / 2);
    tree_->setColumnWidth(ResultsTreeModel::NameColumn, std::max(now, std::min(want, most)));
}

void ResultsPage::addFolderWithDialog() {
    const QString dir = existingFolder(this, QStringLiteral("results"), tr("Add a results folder"));
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
        emit notify(Severity::Warning, c.skipped == 0 ? tr("No DLIO / TrainIO / MLPerf results found in %1%2")
                                                          .arg(path, c.dropped ? tr("; it is not kept in the library's folders") : QString())
                                                    : tr("Nothing imported from %1: %2 (see Results → Import problems)").arg(path, skipped));
        return;
    }
    const std::size_t fresh = c.invocations - c.known;
    if (c.known > 0) {
        // A parent folder of a library folder: what it brings again is said as such, not as new results.
        emit notify(Severity::Info, tr("Added %1: %2 new %3, %4 already in the library; %5")
                                        .arg(path)
                                        .arg(fresh)
                                        .arg(fresh == 1 ? tr("invocation") : tr("invocations"))
                                        .arg(c.known)
                                        .arg(skipped));
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
    std::size_t runs = 0, excluded = 0;
    for (const auto& g : imp.groups) {
        runs += g.runs.size();
        excluded += g.excluded.size();
    }
    summary_->setText(tr("%L1 summaries found · %L2 groups · %L3 complete runs · %L4 excluded (not complete) · "
                         "%L5 duplicates dropped · %L6 skipped")
                          .arg(imp.summariesFound)
                          .arg(imp.groups.size())
                          .arg(runs)
                          .arg(excluded)
                          .arg(imp.duplicates.size())
                          .arg(imp.skipped.size()));
    QString dupTip;
    for (const auto& d : imp.duplicates)
        dupTip += tr("%1 is %2\n").arg(QString::fromStdString(d.path.string()), QString::fromStdString(d.kept.string()));
    // Whole in the tooltip: the line is elided in a narrow window.
    summary_->setToolTip(summary_->text() + (dupTip.isEmpty() ? QString() : tr("\n\nReached twice, counted once:\n") + dupTip.trimmed()));
    skipped_->clear();
    for (const auto& s : imp.skipped) {
        auto* item = new QTreeWidgetItem(skipped_, {QString::fromStdString(s.path.string()), QString::fromStdString(s.reason)});
        item->setToolTip(1, QString::fromStdString(s.reason));
    }
    skipped_->resizeColumnToContents(0);
    if (!imp.skipped.empty())
        emit notify(Severity::Warning, tr("%n file(s) could not be imported; see Results → Import problems.", nullptr,
                                          static_cast<int>(imp.skipped.size())));

}

namespace {

// A replay of a captured job (docs/capture.md): the real job's figures beside the replay's, as a table.
QString jobVersusReplayHtml(const aggregate::ImportResult& imported, const LibraryNode& n) {
    std::vector<std::size_t> runs;
    if (n.kind == NodeKind::Benchmark && n.group) runs = imported.groups.at(*n.group).runs;
    else if ((n.kind == NodeKind::Invocation || n.kind == NodeKind::Epoch) && n.run) runs = {*n.run};
    const auto j = trace::jobVersusReplayOf(imported, runs);
    if (!j) return {};
    auto cell = [](double v, int d) { return std::isfinite(v) ? QString::number(v, 'f', d) : ResultsPage::tr("unknown"); };
    const bool known = j->stepsFromMarks;
    const bool same = j->comparable(); // not edited since it was derived
    QString h = ResultsPage::tr("<p><b>Real job vs replay</b> — this replays a workload derived from the trace <code>%1</code>%2</p>")
                    .arg(QString::fromStdString(j->trace).toHtmlEscaped(),
                         j->replayRuns > 1 ? ResultsPage::tr(" (replay: the mean of %1 runs)").arg(j->replayRuns) : QString());
    h += QStringLiteral("<table cellspacing=4><tr><th></th><th>%1</th><th>%2</th><th>%3</th></tr>")
             .arg(ResultsPage::tr("real job"), ResultsPage::tr("replay"), ResultsPage::tr("difference"));
    h += QStringLiteral("<tr><td>AU %</td><td align=right>%1</td><td align=right>%2</td><td align=right>%3</td></tr>")
             .arg(known ? cell(j->jobAuPercent, 2) : ResultsPage::tr("unknown"), cell(j->replayAuPercent, 2),
                  same ? QStringLiteral("%1%2 points").arg(j->auDifferencePoints() >= 0 ? QStringLiteral("+") : QString(),
                                                            cell(j->auDifferencePoints(), 2))
                        : QString());
    h += QStringLiteral("<tr><td>samples/s</td><td align=right>%1</td><td align=right>%2</td><td align=right>%3</td></tr></table>")
             .arg(known ? cell(j->jobSamplesPerSecond, 1) : ResultsPage::tr("unknown"), cell(j->replaySamplesPerSecond, 1),
                  same ? QStringLiteral("%1%2 %").arg(j->samplesDifferencePercent() >= 0 ? QStringLiteral("+") : QString(),
                                                       cell(j->samplesDifferencePercent(), 1))
                        : QString());
    if (!known) h += ResultsPage::tr("<p>The job had no trainio_capture.steps marks: its steps were inferred, it has no AU of its own.</p>");
    if (!j->edits.empty()) {
        h += ResultsPage::tr("<p><b>Edited:</b> the replay's configuration differs from the workload as derived from the trace "
                             "(%1), so it is another workload than the job: no difference is shown.</p>")
                 .arg(QString::fromStdString(trace::editsText(*j)).toHtmlEscaped());
    }
    return h;
}

} // namespace

void ResultsPage::showDetails() {
    const LibraryNode* n = model_->node(tree_->currentIndex());
    if (!n || !tree_->currentIndex().isValid()) {
        details_->clear();
        return;
    }
    auto esc = [](const std::string& text) { return QString::fromStdString(text).toHtmlEscaped(); };
    auto fmt = [](double v, int d) { return std::isfinite(v) ? QString::number(v, 'f', d) : QStringLiteral("—"); };
    auto row = [&](const QString& name, const aggregate::NodeMetric& m, int d) {
        return QStringLiteral("<tr><td>%1</td><td align=right>%2</td><td align=right>%3</td><td align=right>[%4, %5]</td><td align=right>%6</td></tr>")
            .arg(name, fmt(m.mean, d), fmt(m.stdev, d), fmt(m.ci95.low, d), fmt(m.ci95.high, d))
            .arg(m.n);
    };
    auto list = [&](const QString& title, const std::vector<std::string>& lines) {
        if (lines.empty()) return QString();
        QString out = QStringLiteral("<p><b>%1</b></p><ul>").arg(title);
        for (const auto& l : lines) out += QStringLiteral("<li>%1</li>").arg(esc(l));
        return out + QStringLiteral("</ul>");
    };
    QString html = QStringLiteral("<h3>%1: %2</h3>").arg(QString::fromStdString(aggregate::nodeKindName(n->kind)), esc(n->label));
    if (!n->itemName.empty() && n->itemName != n->label)
        html += tr("<p>Shown in comparisons and reports as <b>%1</b>.</p>").arg(esc(n->itemName));
    if (!n->path.empty()) html += QStringLiteral("<p><code>%1</code></p>").arg(esc(n->path.string()));
    html += tr("<p>Status: <b>%1</b></p>").arg(ResultsTreeModel::statusText(*n).toHtmlEscaped());
    if (n->warmup) html += tr("<p>Warm-up invocation: shown, excluded from every statistic.</p>");
    // Where the bytes came from and what the client did: bold when they say the AU is not about the storage.
    const auto line = [&](const std::string& text, bool warn) {
        if (!text.empty())
            html += QStringLiteral("<p>%1%2%3</p>").arg(warn ? QStringLiteral("<b>") : QString(), esc(text), warn ? QStringLiteral("</b>") : QString());
    };
    line(n->bytesSource, n->cacheServed);
    line(n->telemetrySummary, n->clientBound);
    if (!n->workloadTitle.empty() && n->kind != NodeKind::System)
        html += tr("<p>Workload: %1</p>").arg(esc(n->workloadTitle));
    if (!n->description.empty())
        html += tr("<p><b>%1</b><br/>%2</p>")
                    .arg(n->kind == NodeKind::System ? tr("Storage under test") : tr("Description"), esc(n->description));
    if (!n->notes.empty()) html += tr("<p><b>Notes</b><br/>%1</p>").arg(esc(n->notes));
    if (n->kind == NodeKind::Workload) {
        if (n->bestPassing && *n->bestPassing < n->children.size()) {
            const LibraryNode& best = *n->children[*n->bestPassing];
            if (best.type == aggregate::BenchmarkType::Checkpointing)
                html += tr("<p>Best passing benchmark (most accelerators): <b>%1</b> — %2 accelerators, "
                           "checkpoint write %3 GiB/s, read %4 GiB/s</p>")
                            .arg(esc(best.itemName.empty() ? best.label : best.itemName))
                            .arg(best.accelerators)
                            .arg(fmt(best.checkpointWriteGibPerSecond.mean, 3), fmt(best.checkpointReadGibPerSecond.mean, 3));
            else
                html += tr("<p>Best passing benchmark (most accelerators, then Read GiB/s): <b>%1</b> — %2 accelerators, "
                           "%3 GiB/s, AU %4 %</p>")
                            .arg(esc(best.itemName.empty() ? best.label : best.itemName))
                            .arg(best.accelerators)
                            .arg(fmt(best.readGibPerSecond.mean, 3), fmt(best.au.mean, 2));
        } else if (std::none_of(n->children.begin(), n->children.end(),
                                [](const auto& c) { return c->kind == NodeKind::Benchmark; })) {
            html += tr("<p>No benchmark of this workload yet, only run-once invocations: the rules judge a "
                       "benchmark's runs, never one invocation.</p>");
        } else {
            html += tr("<p>No benchmark of this workload passes.</p>");
        }
    }
    html += list(n->kind == NodeKind::System          ? tr("Per workload")
                 : n->kind == NodeKind::Collocation ? tr("What each workload lost to the others, and each item")
                                                    : tr("Benchmarks side by side"),
                 n->summary);
    if (n->hasMetrics) {
        html += QStringLiteral("<table cellspacing=4><tr><th align=left>metric</th><th>mean</th><th>stdev</th><th>95 % CI</th><th>n</th></tr>");
        if (n->type == aggregate::BenchmarkType::Checkpointing)
            html += row(tr("Checkpoint write GiB/s"), n->checkpointWriteGibPerSecond, 3) +
                    row(tr("Checkpoint write s"), n->checkpointWriteSeconds, 1) +
                    row(tr("Checkpoint read GiB/s"), n->checkpointReadGibPerSecond, 3) +
                    row(tr("Checkpoint read s"), n->checkpointReadSeconds, 1);
        else
            html += row(tr("AU %"), n->au, 2) + row(tr("samples/s"), n->samplesPerSecond, 1) +
                    row(tr("MiB/s"), n->mibPerSecond, 1) + row(tr("Read GiB/s"), n->readGibPerSecond, 3);
        html += QStringLiteral("</table>");
    }
    if (n->hasMetrics || n->kind == NodeKind::System || n->kind == NodeKind::Workload || n->kind == NodeKind::Collocation)
        html += QStringLiteral("<p><i>%1</i></p>").arg(ResultsTreeModel::ruleText(*n));
    else if (n->kind == NodeKind::Benchmark)
        html += tr("<p><i>No complete run: no numbers.</i></p>");
    const auto lib = model_->library();
    if (lib) html += jobVersusReplayHtml(lib->imported(), *n);
    if (n->group && lib) {
        const auto& agg = lib->aggregate(*n->group);
        const auto& group = lib->imported().groups.at(*n->group);
        if (agg.au.values.size() > 0)
            html += tr("<p>Also: median %1 %, min %2 %, geometric mean %3 % (AU over runs).</p>")
                        .arg(fmt(agg.au.median.value, 2), fmt(agg.au.min.value, 2), fmt(agg.au.geomean.value, 2));
        if (group.plannedRuns) html += tr("<p>%1 of %2 planned runs complete.</p>").arg(group.runs.size()).arg(group.plannedRuns);
        if (!group.excluded.empty()) {
            html += tr("<p><b>Excluded runs</b> (not complete, in no statistic):</p><ul>");
            for (std::size_t i : group.excluded) {
                const auto& r = lib->imported().runs.at(i);
                html += QStringLiteral("<li>%1 — %2%3</li>")
                            .arg(esc(r.runName), QString::fromStdString(aggregate::statusName(r.status)),
                                 r.statusReason.empty() ? QString() : QStringLiteral(": ") + esc(r.statusReason));
            }
            html += QStringLiteral("</ul>");
        }
        html += list(tr("Differs from another benchmark in the same folder:"), group.differences);
        html += list(tr("Its runs differ in settings that cannot change what is measured:"), group.settingDifferences);
        if (group.systemFile)
            html += tr("<p>System described by <code>%1</code> (a trainio_labels.json takes precedence).</p>")
                        .arg(esc(group.systemFile->string()));
        if (agg.reportAgrees) html += *agg.reportAgrees ? tr("<p>The folder's mlperf_storage_report.json agrees with the runs.</p>")
                                                        : tr("<p><b>The folder's mlperf_storage_report.json disagrees with the runs.</b></p>");
        html += list(tr("Notes:"), agg.notes);
    }
    const QStringList v = ResultsTreeModel::violations(*n);
    if (!v.isEmpty()) {
        html += tr("<p><b>Rule checks failed:</b></p><ul>");
        for (const QString& s : v) html += QStringLiteral("<li>%1</li>").arg(s.toHtmlEscaped());
        html += QStringLiteral("</ul>");
    } else if (n->badge.evaluated) {
        html += n->badge.passed ? tr("<p>Pass: every check passed.</p>") : tr("<p><b>Fail:</b> AU below the threshold.</p>");
    }
    // Not meant as a submission: the MLPerf Storage rules it would not meet, said as such (no failure).
    if (!n->notSubmission.empty()) {
        html += QStringLiteral("<p>%1:</p><ul>").arg(QString::fromStdString(aggregate::notSubmissionText(n->notSubmission.size())).toHtmlEscaped());
        for (const auto& s : n->notSubmission) html += QStringLiteral("<li>%1</li>").arg(QString::fromStdString(s).toHtmlEscaped());
        html += QStringLiteral("</ul>");
    }
    details_->setHtml(html);
}

void ResultsPage::updateLabelsButton() {
    const QModelIndex i = tree_->currentIndex();
    const LibraryNode* n = i.isValid() ? model_->node(i) : nullptr;
    labels_->setEnabled(n && LabelDialog::canEdit(*n));
}

void ResultsPage::editLabels() {
    const QModelIndex i = tree_->currentIndex();
    const LibraryNode* n = i.isValid() ? model_->node(i) : nullptr;
    const auto lib = model_->library();
    if (!n || !lib || !LabelDialog::canEdit(*n)) {
        emit notify(Severity::Info, tr("Select a system, benchmark or invocation to label it."));
        return;
    }
    LabelDialog dialog(*lib, *n, this);
    if (dialog.exec() != QDialog::Accepted) return;
    emit notify(Severity::Info, tr("Labels saved in %n folder(s); reloading the library.", nullptr,
                                   static_cast<int>(dialog.folders().size())));
    loader_->reload();
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
