// Open and save dialogs that start in the folder last used for the same purpose ("report", "plot",
// "data", "workload", "results", "sweep"), remembered in QSettings "dialogs/<purpose>" across sessions —
// instead of the home folder every time. Test suites replace the dialogs with a hook.
#pragma once

#include <QString>

#include <functional>

class QWidget;

namespace trainio::ui {

// TrainIO's own data folder (the default results root, a preset's data, trace lists): ~/.local/share/TrainIO
// — QStandardPaths::AppDataLocation would be …/TrainIO/TrainIO, organization and application both being
// TrainIO.
QString trainioDataFolder();
// `sub` below trainioDataFolder() — or below the folder earlier versions used (AppDataLocation, …/TrainIO/
// TrainIO) while only that one has it, so that the default results root still finds earlier results.
QString trainioDataPath(const QString& sub);

// The folder to start in for `purpose`: the last one used, or `fallback` (a folder or a file path).
QString dialogStart(const QString& purpose, const QString& fallback);
// Remembers the folder of `chosen` (a file or a folder) for `purpose`; nothing for an empty path.
void rememberDialogFolder(const QString& purpose, const QString& chosen);

// QFileDialog's static functions, started at dialogStart(purpose, …) (a save dialog keeps the suggested
// file name), remembering the folder of what was chosen.
// `defaultSuffix` ("yaml") is added to a name typed without one. A file that exists is replaced only when
// the user says so: the question's default button is Replace, the action the user chose (Qt's own
// question defaults to No); with a hook there is no question.
QString saveFileName(QWidget* parent, const QString& purpose, const QString& caption, const QString& suggestedName,
                     const QString& filter, const QString& defaultSuffix = {});
QString openFileName(QWidget* parent, const QString& purpose, const QString& caption, const QString& fallbackDir,
                     const QString& filter);
QString existingFolder(QWidget* parent, const QString& purpose, const QString& caption, const QString& fallbackDir = {});

// Replaces every dialog above (tests): called with the caption and the path the dialog would start at,
// returns what the user "chose" (empty: cancelled). An empty function restores the dialogs.
using FileDialogHook = std::function<QString(const QString& caption, const QString& start)>;
void setFileDialogHook(FileDialogHook hook);

} // namespace trainio::ui
