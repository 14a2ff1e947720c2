// The dialog shown when pre-flight finds that datagen, a run or a benchmark cannot succeed: every
// problem with what was found and what was expected, before anything is measured or written. Shared by
// the Data and Run pages so both say it the same way.
#pragma once

#include "preflight/preflight.h"

#include <QString>

#include <vector>

class QMessageBox;
class QWidget;

namespace trainio::ui {

// "1 problem", "3 problems".
QString problemCount(std::size_t n);

// One line per problem, plain text ("subject: found; expected …"), for logs and notifications.
QString preflightProblemLines(const std::vector<PreflightProblem>& problems);

// Opens a window-modal box (QMessageBox::open: no nested event loop) that deletes itself when closed;
// returned so that tests can read and close it. `action`: "Generation", "Run", "Benchmark".
QMessageBox* showPreflightProblems(QWidget* parent, const QString& action, const std::vector<PreflightProblem>& problems);

} // namespace trainio::ui
