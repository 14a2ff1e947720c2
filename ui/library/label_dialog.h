// Names and describes results (docs/aggregation.md, "Labels"): the system name, the storage under test,
// notes, the item's own name and the system's figures for its efficiency (usable capacity, power, rack units), for a system, benchmark or invocation of the library. Writes
// trainio_labels.json with core's writeLabelsFile — into the node's folder, or, for a system, into
// every benchmark / single-invocation folder of that system the library holds (and run folders below
// them that have a labels file of their own, which would win) — and the caller then reloads the
// library, whose importer reads the files back.
#pragma once

// moc (Qt 6.4) cannot parse <compare>/<concepts>, which core's aggregate headers pull in.
#ifndef Q_MOC_RUN
#include "aggregate/results_library.h"
#endif

#include <QDialog>

#include <array>
#include <filesystem>
#include <vector>

class QLabel;
class QLineEdit;
class QPlainTextEdit;

namespace trainio::ui {

class LabelDialog final : public QDialog {
    Q_OBJECT
public:
    // `node` must be a system, benchmark or invocation node of `library` (canEdit()).
    LabelDialog(const aggregate::ResultsLibrary& library, const aggregate::LibraryNode& node, QWidget* parent = nullptr);

    static bool canEdit(const aggregate::LibraryNode& node);
    // The folders a node's labels are written into: the item's own folder first (for a system, each of
    // its items' folders), then run folders below with a labels file of their own.
    static std::vector<std::filesystem::path> targetFolders(const aggregate::ResultsLibrary& library,
                                                            const aggregate::LibraryNode& node);

    QLineEdit* systemEdit() const { return system_; }
    QPlainTextEdit* descriptionEdit() const { return description_; }
    QPlainTextEdit* notesEdit() const { return notes_; }
    QLineEdit* nameEdit() const { return name_; }
    // The system's figures for its efficiency, in store::systemFigureKeys() order: usable capacity (GiB),
    // power (kW), rack units. Empty: not given here (an MLPerf systems file may give it).
    QLineEdit* figureEdit(std::size_t i) const { return figures_.at(i); }
    const std::vector<std::filesystem::path>& folders() const { return folders_; }

    // Writes the fields the user changed into every target folder (the other keys of an existing file
    // are kept). Returns false with *error naming the file when one cannot be written; the folders
    // before it keep what was written.
    bool write(QString* error);

    void accept() override;

private:
    bool isSystem_ = false;
    std::vector<std::filesystem::path> folders_;
    QString system0_, description0_, notes0_, name0_; // what the fields started with
    QLineEdit* system_;
    QPlainTextEdit* description_;
    QPlainTextEdit* notes_;
    QLineEdit* name_;
    std::array<QLineEdit*, 3> figures_{};
    std::array<QString, 3> figures0_;
    QLabel* error_;
};

} // namespace trainio::ui
