#include "workload/preflight_dialog.h"

#include <QMessageBox>

namespace trainio::ui {

namespace {

// A long list (hundreds of missing files) would make the box taller than the screen; the rest goes to
// the details, which scroll.
constexpr std::size_t kProblemsInText = 12;

// Core names the output folder after the CLI option; the window calls it what its field is labelled.
PreflightProblem asShownHere(PreflightProblem p) {
    if (p.subject == "--output") p.subject = QObject::tr("Output folder").toStdString();
    return p;
}

} // namespace

QString problemCount(std::size_t n) {
    return n == 1 ? QObject::tr("1 problem") : QObject::tr("%1 problems").arg(n);
}

QString preflightProblemLines(const std::vector<PreflightProblem>& problems) {
    QStringList lines;
    for (const PreflightProblem& p : problems) lines << QString::fromStdString(asShownHere(p).text());
    return lines.join(QLatin1Char('\n'));
}

QMessageBox* showPreflightProblems(QWidget* parent, const QString& action, const std::vector<PreflightProblem>& problems) {
    auto* box = new QMessageBox(parent);
    box->setObjectName(QStringLiteral("preflightDialog"));
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->setIcon(QMessageBox::Critical);
    box->setWindowTitle(QObject::tr("Pre-flight check failed"));
    box->setTextFormat(Qt::RichText);
    box->setText(QObject::tr("<b>%1 not started.</b> %2 found before anything was measured or written:")
                     .arg(action.toHtmlEscaped(), problemCount(problems.size())));
    QString list = QStringLiteral("<table cellspacing=3>");
    for (std::size_t i = 0; i < problems.size() && i < kProblemsInText; ++i) {
        const PreflightProblem p = asShownHere(problems[i]);
        list += QObject::tr("<tr><td>•&nbsp;</td><td><b>%1</b>: %2<br/><i>expected</i> %3</td></tr>")
                    .arg(QString::fromStdString(p.subject).toHtmlEscaped(), QString::fromStdString(p.found).toHtmlEscaped(),
                         QString::fromStdString(p.expected).toHtmlEscaped());
    }
    list += QStringLiteral("</table>");
    if (problems.size() > kProblemsInText)
        list += QObject::tr("<p>… and %1 more (see Show Details).</p>").arg(problems.size() - kProblemsInText);
    box->setInformativeText(list);
    box->setDetailedText(preflightProblemLines(problems));
    box->setStandardButtons(QMessageBox::Ok);
    box->open();
    return box;
}

} // namespace trainio::ui
