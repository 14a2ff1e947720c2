#include "gui_arguments.h"

#include <QFileInfo>

namespace trainio::ui {

QString guiUsage() {
    return QStringLiteral(
        "Usage:\n"
        "  trainio [RESULTS_FOLDER...]\n"
        "  trainio --report PATH... --output FILE.pdf [--title TEXT] [--subtitle TEXT] [--notes FILE] [--no-detail]\n"
        "  trainio --replay RUN_FOLDER... [--speed N]\n"
        "  trainio --screenshot DIR\n"
        "  trainio --help | --version\n\n"
        "--report   import the results below each PATH (TrainIO benchmark folders, any DLIO or MLPerf Storage\n"
        "           tree) and write a PDF report to --output; prints the PDF's path. Exit 2 on bad input.\n"
        "--title, --subtitle  the report's first page; --notes FILE  a UTF-8 text file printed under them.\n"
        "--no-detail  leave out the detail section of each item (plots, statistics, runs, configuration): the\n"
        "           answer, the comparison and a short appendix only, a few pages even for many items.\n"
        "--replay   play up to 3 recorded runs side by side, full screen, from their per-step records\n"
        "           (<rank>_output.json; a benchmark folder plays its run of median AU): no storage is read,\n"
        "           each lane says \"replay of <run>, recorded <date>\". --speed N plays N times faster (1).\n");
}

GuiArguments parseGuiArguments(const QStringList& args) {
    GuiArguments a;
    bool report = false;
    for (int i = 0; i < args.size(); ++i) {
        const QString& arg = args[i];
        auto value = [&](const QString& name) -> QString {
            if (i + 1 >= args.size() || args[i + 1].startsWith(QLatin1String("--"))) {
                if (a.error.isEmpty()) a.error = QStringLiteral("%1 needs a value").arg(name);
                return {};
            }
            return args[++i];
        };
        if (arg == QLatin1String("--report")) report = true;
        else if (arg == QLatin1String("--replay")) a.mode = GuiArguments::Mode::Replay;
        else if (arg == QLatin1String("--speed")) {
            const QString v = value(arg);
            bool ok = false;
            a.speed = v.toDouble(&ok);
            if (!v.isEmpty() && (!ok || !(a.speed > 0) || a.speed > 1000) && a.error.isEmpty())
                a.error = QStringLiteral("--speed %1: expected a number above 0, at most 1000 (1 plays at the recorded pace)").arg(v);
        }
        else if (arg == QLatin1String("--output") || arg == QLatin1String("-o")) a.output = value(arg);
        else if (arg == QLatin1String("--title")) a.title = value(arg);
        else if (arg == QLatin1String("--subtitle")) a.subtitle = value(arg);
        else if (arg == QLatin1String("--notes")) a.notesFile = value(arg);
        else if (arg == QLatin1String("--no-detail")) a.itemDetail = false;
        else if (arg == QLatin1String("--screenshot")) {
            a.mode = GuiArguments::Mode::Screenshot;
            a.screenshotDir = value(arg);
        } else if (arg == QLatin1String("--help") || arg == QLatin1String("-h")) {
            a.mode = GuiArguments::Mode::Help;
            return a;
        } else if (arg == QLatin1String("--version")) {
            a.mode = GuiArguments::Mode::Version;
            return a;
        } else if (arg.startsWith(QLatin1String("--"))) {
            // Qt's own options (-platform, -style …) use one dash and are consumed by QApplication.
            if (a.error.isEmpty()) a.error = QStringLiteral("unknown option %1").arg(arg);
        } else a.paths << arg;
    }
    if (!a.error.isEmpty()) return a;
    if (a.speed != 1.0 && a.mode != GuiArguments::Mode::Replay) {
        a.error = QStringLiteral("--speed is only used with --replay");
        return a;
    }
    if (a.mode == GuiArguments::Mode::Replay) {
        if (report) a.error = QStringLiteral("--replay and --report: one at a time");
        else if (!a.output.isEmpty() || !a.title.isEmpty() || !a.subtitle.isEmpty() || !a.notesFile.isEmpty() || !a.itemDetail)
            a.error = QStringLiteral("--output, --title, --subtitle, --notes and --no-detail are only used with --report");
        else if (a.paths.isEmpty()) a.error = QStringLiteral("--replay needs at least one recorded run's folder");
        else if (a.paths.size() > 3) a.error = QStringLiteral("--replay plays at most 3 runs side by side (%1 given)").arg(a.paths.size());
        else
            for (const QString& p : a.paths)
                if (!QFileInfo(p).isDir()) {
                    a.error = QStringLiteral("%1: no such folder").arg(p);
                    break;
                }
        return a;
    }
    if (report) {
        a.mode = GuiArguments::Mode::Report;
        if (a.paths.isEmpty()) a.error = QStringLiteral("--report needs at least one results folder");
        else if (a.output.isEmpty()) a.error = QStringLiteral("--report needs --output FILE.pdf");
        else
            for (const QString& p : a.paths) {
                const QFileInfo info(p);
                if (!info.exists()) a.error = QStringLiteral("%1: no such file or folder").arg(p);
                else if (!info.isReadable() || (info.isDir() && !info.isExecutable()))
                    a.error = QStringLiteral("%1: not readable (permission denied)").arg(p);
                if (!a.error.isEmpty()) break;
            }
    } else if (!a.output.isEmpty() && a.mode == GuiArguments::Mode::Window) {
        a.error = QStringLiteral("--output is only used with --report");
    } else if ((!a.subtitle.isEmpty() || !a.notesFile.isEmpty()) && a.mode == GuiArguments::Mode::Window) {
        a.error = QStringLiteral("--subtitle and --notes are only used with --report");
    } else if (!a.itemDetail && a.mode == GuiArguments::Mode::Window) {
        a.error = QStringLiteral("--no-detail is only used with --report");
    }
    if (a.mode == GuiArguments::Mode::Screenshot && a.screenshotDir.isEmpty() && a.error.isEmpty())
        a.error = QStringLiteral("--screenshot needs a folder");
    return a;
}

} // namespace trainio::ui
