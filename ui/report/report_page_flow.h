// Lays blocks (rich text, tables that split across pages, vector plots) down A4 pages of a QPdfWriter,
// with a running header and "Page n of N" footer. The report is laid out twice: a dry run without a
// painter counts the pages, then the real run paints; both make the same decisions, because every
// measurement uses the writer's metrics, never the painter.
// The flow itself touches no widget, so both passes may run on a worker thread: figures (QCustomPlot is a
// widget) are only noted in the dry run, and the painting pass hands each one to a PlotPainter, which
// makes and draws it on the GUI thread.
#pragma once

#include <QDateTime>
#include <QFont>
#include <QString>
#include <QStringList>

class QTextDocument;

#include <functional>
#include <memory>
#include <utility>
#include <vector>

class QPdfWriter;
class QCPPainter;
class QCustomPlot;

namespace trainio::ui {

// The report's one font family (text and plots alike).
inline const QString kFontFamily = QStringLiteral("DejaVu Sans");

struct ReportTable {
    QStringList header;                 // HTML cells
    std::vector<QStringList> rows;      // HTML cells
    std::vector<int> widthsPercent;     // one per column, summing to about 100
    std::vector<bool> alignRight;       // one per column; numbers are right-aligned
    std::vector<QString> rowBackground; // optional, per row (e.g. the warm-up), "" for none
    bool headerRow = true;
    bool zebra = true;
    double fontPt = 7.5;
};

// A figure to be made later, on the GUI thread.
using PlotFactory = std::function<std::unique_ptr<QCustomPlot>()>;

// A figure the dry run placed: how to make it and its size on the page, in plot pixels.
struct PlotRequest {
    PlotFactory make;
    int widthPx = 0;
    int heightPx = 0;
};

class ReportPageFlow {
public:
    struct Chrome {
        QString headerLeft;
        QString headerRight;
        QString footerLeft;
        int totalPages = 0; // 0 while counting
    };

    // Draws one figure with the painter set up for it (origin at its corner, in plot pixels).
    using PlotPainter = std::function<void(const PlotRequest& request, QCPPainter& painter)>;

    // painter == nullptr: dry run (measure and paginate only; figures are noted in plotRequests()).
    // Otherwise figures are drawn by plotPainter.
    ReportPageFlow(QPdfWriter& writer, QCPPainter* painter, Chrome chrome, PlotPainter plotPainter = {});

    double contentWidth() const { return right_ - left_; }
    double mm(double millimetres) const;
    int pageCount() const { return page_; }

    void newPage();
    // Starts a new page unless `height` still fits below the cursor (or the page is still empty).
    void ensureSpace(double height);
    void addSpace(double height);

    // A block of rich text, kept on one page when it fits on one; a block taller than a page is split
    // between its lines (never drawn past the text area).
    void addHtml(const QString& html, double fontPt = 9.0);
    // A heading: drawn together with the start of the next block (its first lines, the header and first
    // rows of a table, a row of plots), so that a heading never ends a page. Also for the sentence that
    // introduces a table or plots (at its own `fontPt`): never left alone at a page's foot. Headings in a row
    // (a section's heading, then an intro) all go with the block after them.
    void addHeading(const QString& html, double spaceAfter, double fontPt = 9.0);
    // A table; splits between rows when it does not fit, repeating the header row.
    void addTable(const ReportTable& table);
    // Plots side by side across the content width, each `height` high, drawn as vectors.
    void addPlots(const std::vector<PlotFactory>& plots, double height);
    const std::vector<PlotRequest>& plotRequests() const { return requests_; }

    // Told how far the pass is (0…1) at each new page of the painting pass and at each report section;
    // it may throw to stop the pass (a cancelled export).
    using Progress = std::function<void(double fraction)>;
    void setProgress(Progress progress) { progress_ = std::move(progress); }
    void reportProgress(double fraction) const {
        if (progress_) progress_(fraction);
    }

    // Device pixels per plot pixel: plots are laid out as on a 96 dpi screen, then scaled onto the page
    // so that their pixel-sized fonts come out at print sizes.
    double plotScale() const;

    // Called for every plot recorded for a page, with its size in plot pixels: lets a test look at each
    // figure as the page shows it (axis ranges, the legend inside the figure).
    using PlotObserver = std::function<void(QCustomPlot& plot, int widthPx, int heightPx)>;

private:
    double measureHtml(const QString& html, double width, double fontPt) const;
    // Sets doc up with html laid out for the PDF device at the given width and font size.
    void layoutHtml(QTextDocument& doc, const QString& html, double width, double fontPt) const;
    void drawHtml(const QString& html, double x, double y, double width, double fontPt);
    // The table's column widths in percent: its own, each widened to its longest word and the others
    // narrowed to make room. A word then never breaks inside: Qt's own column minimum can fall short of
    // the word as laid out, and Qt then breaks the word anywhere ("1." / "125", "Rea" / "d s").
    std::vector<double> fittedWidths(const ReportTable& table) const;
    QString tableHtml(const ReportTable& table, const std::vector<double>& widths, std::size_t from, std::size_t to) const;
    void paintChrome();
    // Draws a pending heading, first starting a new page unless it and `next` (the height of what must
    // stay with it) fit below the cursor.
    void placeHeading(double next);
    // Draws doc's lines from document y `from` up to `to` (line bounds) at the cursor.
    void drawLines(QTextDocument& doc, double from, double to);

    QPdfWriter& writer_;
    QCPPainter* painter_;
    Chrome chrome_;
    double left_ = 0, right_ = 0, top_ = 0, bottom_ = 0, pageHeight_ = 0, pageWidth_ = 0;
    double y_ = 0;
    int page_ = 1;
    PlotPainter plotPainter_;
    std::vector<PlotRequest> requests_;
    Progress progress_;
    // Headings (and table or plot intros) not drawn yet: they go on the page of what follows them, together.
    struct PendingHeading {
        QString html;
        double spaceAfter = 0;
        double fontPt = 9.0;
    };
    std::vector<PendingHeading> pending_;
};

// Makes the figure of `request` and draws it, as vectors, with the painter set up for it. GUI thread only
// (a widget); the painter may belong to a worker that waits meanwhile.
void paintPlot(const PlotRequest& request, QCPPainter& painter, const ReportPageFlow::PlotObserver& observer = {});

// The report's typeface at a print size, without ligatures.
QFont reportFont(double pointSize);

// Escapes text for HTML. htmlBreakable also lets paths and names ("Cray_C500_4xHDR200_1host · unet3d_h100")
// wrap at their spaces (after a " · ", never before) and after each '/'; inside a part between those only
// when the part is too long to stay whole on a line of a narrow column (after '_'; a hyphen is a break).
QString htmlText(const QString& text);
QString htmlBreakable(const QString& text);
// Escaped text that never breaks across lines: a number with its unit ("141.2 GiB/s"), "88.60 ± 24.27".
QString htmlNoBreak(const QString& text);

} // namespace trainio::ui
