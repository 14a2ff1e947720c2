// The desktop binary's command line, parsed before any window exists so that `trainio --report` runs
// headless (no display needed with QT_QPA_PLATFORM=offscreen).
//   trainio                                   the window
//   trainio FOLDER…                           the window, with these results folders added
//   trainio --report PATH… --output FILE.pdf [--title TEXT] [--subtitle TEXT] [--notes FILE] [--no-detail]
//                                             write a PDF report and exit
//   trainio --replay RUN_FOLDER… [--speed N]  recorded runs side by side, full screen (race_view.h)
//   trainio --screenshot DIR                  render every page into DIR/*.png and exit (docs)
#pragma once

#include <QString>
#include <QStringList>

namespace trainio::ui {

struct GuiArguments {
    enum class Mode { Window, Report, Replay, Screenshot, Help, Version };
    Mode mode = Mode::Window;
    QStringList paths;  // --report inputs, or folders to open in the window
    QString output;     // --output
    QString title;      // --title
    QString subtitle;   // --subtitle
    QString notesFile;  // --notes: a UTF-8 text file (read by the caller, see readNotesFile)
    bool itemDetail = true; // --no-detail: no per-item detail section
    QString screenshotDir;
    double speed = 1.0; // --speed (--replay)
    QString error;      // non-empty: bad input (exit code 2)
};

// args excludes argv[0].
GuiArguments parseGuiArguments(const QStringList& args);
QString guiUsage();

} // namespace trainio::ui
