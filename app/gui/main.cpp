// Composition root of the desktop application. The command line is parsed before any window exists:
// `--report` writes a PDF and exits without showing anything (works offscreen, without a display).
#include "gui_arguments.h"
#include "main_window.h"
#include "report/report_writer.h"
#include "screenshot_tour.h"

#include <QApplication>
#include <QDir>
#include <QFileInfo>
#include <QGuiApplication>
#include <QScreen>
#include <QSettings>
#include <QTemporaryDir>
#include <QTextStream>

#include <cstdlib>
#include <cstring>
#include <memory>

int main(int argc, char* argv[]) {
    // The platform plugin is chosen when QApplication is constructed: a headless report, --help and
    // --version (help2man, scripts, a terminal without X) must not need a display, so pick the offscreen
    // platform unless the user chose one.
    for (int i = 1; i < argc; ++i)
        if (std::strcmp(argv[i], "--report") == 0 || std::strncmp(argv[i], "--report=", 9) == 0 ||
            std::strcmp(argv[i], "--help") == 0 || std::strcmp(argv[i], "-h") == 0 ||
            std::strcmp(argv[i], "--version") == 0) {
            if (!std::getenv("QT_QPA_PLATFORM")) setenv("QT_QPA_PLATFORM", "offscreen", 1);
            break;
        }
    QApplication app(argc, argv);
    QApplication::setOrganizationName(QStringLiteral("TrainIO"));
    QApplication::setApplicationName(QStringLiteral("TrainIO"));
    QApplication::setApplicationVersion(QStringLiteral(TRAINIO_VERSION));
    QApplication::setDesktopFileName(QStringLiteral("trainio"));

    using trainio::ui::GuiArguments;
    QStringList args = QApplication::arguments();
    args.removeFirst();
    const GuiArguments parsed = trainio::ui::parseGuiArguments(args);
    QTextStream out(stdout), err(stderr);
    if (!parsed.error.isEmpty()) {
        err << "trainio: " << parsed.error << "\n\n" << trainio::ui::guiUsage();
        return 2;
    }
    switch (parsed.mode) {
    case GuiArguments::Mode::Help: out << trainio::ui::guiUsage(); return 0;
    case GuiArguments::Mode::Version: out << "trainio " << TRAINIO_VERSION << '\n'; return 0;
    case GuiArguments::Mode::Report: {
        trainio::ui::ReportRequest request;
        for (const QString& p : parsed.paths) request.paths.emplace_back(p.toStdString());
        request.options.title = parsed.title;
        request.options.subtitle = parsed.subtitle;
        request.options.itemDetail = parsed.itemDetail;
        QString error;
        if (!parsed.notesFile.isEmpty() && !trainio::ui::readNotesFile(parsed.notesFile, &request.options.notes, &error)) {
            err << "trainio: " << error << '\n';
            return 2;
        }
        if (!trainio::ui::writeReportPdf(request, parsed.output, &error)) {
            err << "trainio: " << error << '\n';
            return 2;
        }
        out << QFileInfo(parsed.output).absoluteFilePath() << '\n';
        return 0;
    }
    case GuiArguments::Mode::Screenshot: {
        // Keep the user's settings out of it: a throwaway settings folder.
        QTemporaryDir settingsDir;
        QSettings::setDefaultFormat(QSettings::IniFormat);
        QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, settingsDir.path());
        trainio::ui::MainWindow window;
        // The whole screen, as a presenter's window: QT_QPA_PLATFORM=offscreen:configfile=… with a 1280×720
        // or 1600×1000 screen gives the pictures at that size (docs/screenshots/README.md).
        window.setGeometry(QGuiApplication::primaryScreen()->availableGeometry());
        window.show();
        trainio::ui::ScreenshotTour tour(&window, parsed.screenshotDir, parsed.paths);
        QObject::connect(&tour, &trainio::ui::ScreenshotTour::finished, &app, [](int code) { QApplication::exit(code); });
        tour.start();
        return QApplication::exec();
    }
    case GuiArguments::Mode::Replay: {
        trainio::ui::MainWindow window;
        window.restoreSession();
        window.show();
        QString error;
        if (!window.replay(parsed.paths, parsed.speed, &error)) {
            err << "trainio: " << error << '\n';
            return 2;
        }
        return QApplication::exec();
    }
    case GuiArguments::Mode::Window: break;
    }

    trainio::ui::MainWindow window;
    window.restoreSession();
    for (const QString& p : parsed.paths) window.openResultsFolder(p);
    if (!parsed.paths.isEmpty()) window.showPage(trainio::ui::MainWindow::ResultsPageIndex);
    window.show();
    return QApplication::exec();
}
