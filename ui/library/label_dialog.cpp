#include "library/label_dialog.h"

#include "widgets/qt_text.h"
#include "store/labels.h"

#include <QDialogButtonBox>
#include <QDir>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QVBoxLayout>

#include <algorithm>
#include <array>
#include <optional>
#include <exception>

namespace trainio::ui {

using aggregate::LibraryNode;
using aggregate::NodeKind;

namespace {


const LibraryNode* systemOf(const LibraryNode& node) {
    const LibraryNode* n = &node;
    while (n && n->kind != NodeKind::System) n = n->parent;
    return n;
}

// The items of a system: its benchmarks and the run-once invocations that sit directly under a workload.
void collectLabelItems(const LibraryNode& n, std::vector<const LibraryNode*>& out) {
    if (aggregate::isLibraryItem(n)) {
        out.push_back(&n);
        return;
    }
    if (n.kind == NodeKind::Invocation || n.kind == NodeKind::Epoch) return;
    for (const auto& c : n.children) collectLabelItems(*c, out);
}

// The folder an item's labels belong in: a TrainIO benchmark's own folder (where its manifest is), a
// single invocation's folder, else the folder its runs were found in.
std::filesystem::path itemFolder(const aggregate::ResultsLibrary& library, const LibraryNode& bench) {
    const auto& imp = library.imported();
    if (bench.kind == NodeKind::Invocation) return bench.run ? imp.runs.at(*bench.run).path : bench.path;
    if (bench.group) {
        const auto& g = imp.groups.at(*bench.group);
        const auto& members = g.runs.empty() ? g.excluded : g.runs;
        if (g.kind == aggregate::GroupKind::Manifest && !members.empty())
            if (const auto& manifest = imp.runs.at(members.front()).manifest) return manifest->parent_path();
        if (g.kind == aggregate::GroupKind::Single) {
            if (members.size() == 1) return imp.runs.at(members.front()).path;
        }
        if (!g.path.empty()) return g.path;
    }
    return bench.path;
}

} // namespace

bool LabelDialog::canEdit(const LibraryNode& node) {
    return node.kind == NodeKind::System || node.kind == NodeKind::Benchmark || node.kind == NodeKind::Invocation;
}

std::vector<std::filesystem::path> LabelDialog::targetFolders(const aggregate::ResultsLibrary& library, const LibraryNode& node) {
    std::vector<std::filesystem::path> out;
    auto add = [&out](std::filesystem::path p) {
        if (!p.empty() && std::find(out.begin(), out.end(), p) == out.end()) out.push_back(std::move(p));
    };
    std::vector<const LibraryNode*> items;
    if (node.kind == NodeKind::System) collectLabelItems(node, items);
    else items.push_back(&node);
    const auto& imp = library.imported();
    for (const LibraryNode* item : items) {
        add(itemFolder(library, *item));
        // The nearest labels file wins: a run folder with a file of its own would keep its old system
        // name and description, so those files get the change too (never the item's name).
        if (item->kind != NodeKind::Benchmark || !item->group) continue;
        const auto& g = imp.groups.at(*item->group);
        for (const auto* list : {&g.warmups, &g.runs, &g.excluded})
            for (std::size_t ri : *list) {
                std::error_code ec;
                const std::filesystem::path run = imp.runs.at(ri).path;
                if (std::filesystem::exists(run / store::kLabelsFile, ec)) add(run);
            }
    }
    return out;
}

LabelDialog::LabelDialog(const aggregate::ResultsLibrary& library, const LibraryNode& node, QWidget* parent)
    : QDialog(parent), isSystem_(node.kind == NodeKind::System), folders_(targetFolders(library, node)) {
    setObjectName(QStringLiteral("labelDialog"));
    const LibraryNode* system = systemOf(node);
    const QString what = isSystem_ ? tr("system") : q(aggregate::nodeKindName(node.kind));
    setWindowTitle(tr("Labels of %1 %2").arg(what, q(isSystem_ ? node.label : node.itemName)));

    system0_ = system ? q(system->label) : QString();
    description0_ = q(node.description);
    if (description0_.isEmpty() && system) description0_ = q(system->description);
    notes0_ = q(node.notes);
    if (node.kind == NodeKind::Benchmark && node.group) name0_ = q(library.imported().groups.at(*node.group).labels.name);
    else if (node.kind == NodeKind::Invocation && node.run) name0_ = q(library.imported().runs.at(*node.run).labels.name);

    auto* layout = new QVBoxLayout(this);
    auto* form = new QFormLayout;
    system_ = new QLineEdit(system0_, this);
    system_->setObjectName(QStringLiteral("labelSystem"));
    system_->setPlaceholderText(tr("e.g. lab-nvme-01: the storage under test and its client hosts"));
    form->addRow(tr("&System name:"), system_);
    description_ = new QPlainTextEdit(description0_, this);
    description_->setObjectName(QStringLiteral("labelDescription"));
    description_->setPlaceholderText(tr("The storage under test: file system (ext4, XFS, Lustre, NFS v4.2, …), device or "
                                        "array (4x NVMe PM9A3 in RAID 0, …), mount options (noatime, …), network "
                                        "(2x 100 GbE, …), client hosts (1x 2-socket EPYC 9454, 512 GiB)"));
    description_->setTabChangesFocus(true);
    form->addRow(tr("&Description:"), description_);
    notes_ = new QPlainTextEdit(notes0_, this);
    notes_->setObjectName(QStringLiteral("labelNotes"));
    notes_->setPlaceholderText(tr("Anything a reader should know: firmware, tuning, what changed since the last run"));
    notes_->setTabChangesFocus(true);
    form->addRow(tr("&Notes:"), notes_);
    name_ = new QLineEdit(name0_, this);
    name_->setObjectName(QStringLiteral("labelName"));
    name_->setPlaceholderText(isSystem_ ? tr("(names are given per benchmark or invocation)")
                                        : tr("default: %1").arg(q(node.itemName)));
    name_->setEnabled(!isSystem_);
    form->addRow(tr("Item &name:"), name_);
    // The system's figures (docs/aggregation.md, "Efficiency"): what the labels say now; what a systems file
    // says is shown as the placeholder, which a value here overrides.
    const LibraryNode* item = &node;
    if (!aggregate::isLibraryItem(node)) {
        std::vector<const LibraryNode*> items;
        collectLabelItems(node, items);
        item = items.empty() ? nullptr : items.front();
    }
    const QString figureNames[] = {tr("&Usable capacity (GiB):"), tr("&Power (kW):"), tr("&Rack units:")};
    for (std::size_t i = 0; i < figures_.size(); ++i) {
        const auto& key = store::systemFigureKeys().at(i);
        const aggregate::SystemFigure* figure = item ? &(item->efficiency.figures.*(key.member)) : nullptr;
        const bool fromLabels = figure && figure->value && figure->file.filename() == store::kLabelsFile;
        figures0_[i] = fromLabels ? QString::number(*figure->value, 'g', 12) : QString();
        figures_[i] = new QLineEdit(figures0_[i], this);
        figures_[i]->setObjectName(QStringLiteral("labelFigure_%1").arg(QString::fromUtf8(key.key)));
        figures_[i]->setPlaceholderText(figure && figure->value && !fromLabels
                                            ? tr("%1 from %2").arg(QString::number(*figure->value, 'g', 12), q(figure->file.filename().string()))
                                            : tr("not given: a positive number, for the efficiency (GiB/s per …)"));
        form->addRow(figureNames[i], figures_[i]);
    }
    layout->addLayout(form);

    QString where;
    if (folders_.size() == 1) {
        where = tr("Saved as %1 in %2.").arg(q(store::kLabelsFile), QDir::toNativeSeparators(q(folders_.front().string())));
    } else {
        where = tr("Saved as %1 in each of these %2 folders (%3, and run folders with a labels file of their own, "
                   "which would otherwise win); fields you leave unchanged keep what each folder's file says:")
                    .arg(q(store::kLabelsFile))
                    .arg(folders_.size())
                    .arg(isSystem_ ? tr("the benchmark and run-once folders of this system that the library holds")
                                   : tr("the item's folder"));
        where += QStringLiteral("<ul>");
        for (const auto& f : folders_)
            where += QStringLiteral("<li><code>%1</code></li>").arg(QDir::toNativeSeparators(q(f.string())).toHtmlEscaped());
        where += QStringLiteral("</ul>");
    }
    // An MLPerf tree describes its systems in systems/<name>.json|yaml; a labels file overrides it.
    std::vector<std::filesystem::path> systemFiles;
    if (system)
        for (const auto& g : library.imported().groups)
            if (g.system == system->label && g.systemFile &&
                std::find(systemFiles.begin(), systemFiles.end(), *g.systemFile) == systemFiles.end())
                systemFiles.push_back(*g.systemFile);
    for (const auto& f : systemFiles)
        where += tr("<p>The system name and description come from <code>%1</code>. What you write here goes into "
                    "%2, which takes precedence over that file; the file itself is left as it is.</p>")
                     .arg(QDir::toNativeSeparators(q(f.string())).toHtmlEscaped(), q(store::kLabelsFile));
    auto* whereLabel = new QLabel(where, this);
    whereLabel->setObjectName(QStringLiteral("labelTargets"));
    whereLabel->setWordWrap(true);
    whereLabel->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(whereLabel);
    error_ = new QLabel(this);
    error_->setWordWrap(true);
    error_->setStyleSheet(QStringLiteral("color: #c62828"));
    error_->hide();
    layout->addWidget(error_);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Save | QDialogButtonBox::Cancel, this);
    buttons->button(QDialogButtonBox::Save)->setEnabled(!folders_.empty());
    connect(buttons, &QDialogButtonBox::accepted, this, &LabelDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &LabelDialog::reject);
    layout->addWidget(buttons);
    resize(620, sizeHint().height());
}

bool LabelDialog::write(QString* error) {
    const QString system = system_->text().trimmed();
    const QString description = description_->toPlainText().trimmed();
    const QString notes = notes_->toPlainText().trimmed();
    const QString name = name_->text().trimmed();
    // The figures the user changed, checked before any folder is written: a cleared field clears the figure;
    // anything else must be a positive number (the error names the file, the key and the value).
    std::array<std::optional<aggregate::SystemFigure>, 3> changed;
    for (std::size_t i = 0; i < figures_.size() && !folders_.empty(); ++i) {
        const QString text = figures_[i]->text().trimmed();
        if (text == figures0_[i].trimmed()) continue;
        const char* key = store::systemFigureKeys().at(i).key;
        try {
            changed[i] = text.isEmpty() ? aggregate::SystemFigure{}
                                        : aggregate::SystemFigure{
                                              store::parseSystemFigure((folders_.front() / store::kLabelsFile).string(), key, text.toStdString()), {}, key};
        } catch (const std::exception& e) {
            if (error) *error = QString::fromUtf8(e.what());
            return false;
        }
    }
    for (const auto& folder : folders_) {
        try {
            // Only what the user changed is written: a system's other folders keep their own notes and
            // names, and a cleared field is cleared (hence replace, over the file's current keys).
            aggregate::Labels labels = store::readLabelsFile(folder).value_or(aggregate::Labels{});
            if (system != system0_.trimmed()) labels.system = system.toStdString();
            if (description != description0_.trimmed()) labels.description = description.toStdString();
            if (notes != notes0_.trimmed()) labels.notes = notes.toStdString();
            // The name is the item's own: only its folder (the first) gets it.
            if (!isSystem_ && &folder == &folders_.front() && name != name0_.trimmed()) labels.name = name.toStdString();
            for (std::size_t i = 0; i < figures_.size(); ++i)
                if (changed[i]) labels.figures.*(store::systemFigureKeys().at(i).member) = *changed[i];
            store::writeLabelsFile(folder, labels, true);
        } catch (const std::exception& e) {
            if (error) *error = QString::fromUtf8(e.what());
            return false;
        }
    }
    return true;
}

void LabelDialog::accept() {
    QString why;
    if (!write(&why)) {
        error_->setText(tr("Labels not saved: %1").arg(why));
        error_->show();
        return;
    }
    QDialog::accept();
}

} // namespace trainio::ui
