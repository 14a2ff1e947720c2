#include "report/report_page_flow.h"
#include "report/report_plots.h"

#include <qcustomplot.h>

#include <QAbstractTextDocumentLayout>
#include <QPdfWriter>
#include <QRegularExpression>
#include <QTextBlock>
#include <QTextDocument>
#include <QTextDocumentFragment>
#include <QFontMetricsF>
#include <QTextLayout>

#include <algorithm>
#include <numeric>
#include <stdexcept>
#include <utility>

namespace trainio::ui {

namespace {

constexpr double kMarginSideMm = 17.0;
constexpr double kMarginTopMm = 20.0;
constexpr double kMarginBottomMm = 18.0;
constexpr double kPlotGapMm = 4.0;

QString styleSheet(double fontPt) {
    return QStringLiteral("body { font-family: '%1'; font-size: %2pt; color: #1d1d1f; }"
                          "h1 { font-size: 22pt; font-weight: 600; color: #17324d; margin: 0; }"
                          "h2 { font-size: 14pt; font-weight: 600; color: #17324d; margin: 0; }"
                          "h3 { font-size: 10.5pt; font-weight: 600; color: #17324d; margin: 0; }"
                          "p { margin: 0; }"
                          ".muted { color: #5f6b76; }"
                          ".pass { color: #1e7b34; font-weight: 600; }"
                          ".fail { color: #b3261e; font-weight: 600; }"
                          "th { background-color: #e4ebf2; color: #17324d; font-weight: 600; }"
                          "td, th { padding: 2px 4px; }"
                          // The report's sections use these classes, never inline styles (issue 29).
                          ".subtitle { font-size: 12pt; color: #33475b; }"              // page 1, under the title
                          ".caption { font-size: 7.5pt; color: #5f6b76; }"              // under a heading, a table's intro
                          ".aside { font-weight: normal; color: #5f6b76; }"             // a heading's muted tail
                          ".account { margin-bottom: 3px; }"                            // lines of an account (runs left out)
                          ".grid { border-color: #c5cfd8; border-style: solid; }"      // tables: hairline grid
                          ".headline-title { font-size: 8pt; color: #17324d; }"         // a headline block's workload
                          ".headline-question { font-size: 10pt; }"                     // … its sentence
                          ".figure-large { font-size: 17pt; font-weight: 600; color: #17324d; }" // … its figure
                          ".figure-medium { font-size: 13pt; font-weight: 600; color: #17324d; }"
                          ".detail { font-size: 8pt; }")
        .arg(kFontFamily)
        .arg(fontPt);
}

} // namespace

QFont reportFont(double pointSize) {
    QFont font(kFontFamily);
    font.setPointSizeF(pointSize);
    // Any letter spacing (>= 1/64 px, Qt stores it in 26.6 fixed point) turns off Qt's ligatures; with them pdftotext, search and copy-paste read
    // "cosmoﬂow" (U+FB02) instead of "cosmoflow".
    font.setLetterSpacing(QFont::AbsoluteSpacing, 0.05);
    return font;
}

namespace {
// A count stays with what it counts ("20 accelerators", "140 MiB/sample") and a value with its unit.
QString joinUnits(QString html) {
    static const QRegularExpression unit(QStringLiteral("(\\d) (accelerators?|processes|runs?|epochs?|%|[KMG]iB(/s|/sample)?|samples/s|s\\b)"));
    html.replace(unit, QStringLiteral("\\1\u00A0\\2"));
    return html;
}
} // namespace

QString htmlText(const QString& text) { return joinUnits(text.toHtmlEscaped()); }

QString htmlNoBreak(const QString& text) {
    QString out = text.toHtmlEscaped();
    out.replace(QLatin1Char(' '), QChar(0x00A0));
    return out;
}

QString htmlBreakable(const QString& text) {
    // A part of a path or name this long cannot stay whole in a table's column: it breaks inside, after
    // its '_'; a shorter one ("unet3d_h100") stays whole. (A hyphen is a break wherever it is: a word
    // joiner after it would end up in the PDF's text, and "alone-a" would no longer be found.)
    constexpr qsizetype kLongPart = 20;
    QStringList words;
    for (const QString& word : text.split(QLatin1Char(' '))) {
        QStringList parts;
        for (const QString& part : word.split(QLatin1Char('/'))) {
            QString html = part.toHtmlEscaped();
            // A zero-width space is a line-break opportunity that prints as nothing.
            if (part.size() > kLongPart) html.replace(QLatin1Char('_'), QStringLiteral("_\u200B"));
            parts << html;
        }
        words << parts.join(QStringLiteral("/\u200B"));
    }
    QString out = joinUnits(words.join(QLatin1Char(' ')));
    // No break inside a unit ("MiB/s", "KiB/sample", "samples/s"), nor before the dot between a name's parts.
    static const QRegularExpression inUnit(QStringLiteral("(iB|samples)/\u200B(s\\b|sample)"));
    out.replace(inUnit, QStringLiteral("\\1/\\2"));
    out.replace(QStringLiteral(" \u00B7"), QStringLiteral("\u00A0\u00B7"));
    return out;
}

ReportPageFlow::ReportPageFlow(QPdfWriter& writer, QCPPainter* painter, Chrome chrome, PlotPainter plotPainter)
    : writer_(writer), painter_(painter), chrome_(std::move(chrome)), plotPainter_(std::move(plotPainter)) {
    pageWidth_ = writer_.width();
    pageHeight_ = writer_.height();
    left_ = mm(kMarginSideMm);
    right_ = pageWidth_ - mm(kMarginSideMm);
    top_ = mm(kMarginTopMm);
    bottom_ = pageHeight_ - mm(kMarginBottomMm);
    y_ = top_;
    paintChrome();
}

double ReportPageFlow::mm(double millimetres) const { return millimetres * writer_.resolution() / 25.4; }

double ReportPageFlow::plotScale() const { return writer_.resolution() / 96.0; }

void ReportPageFlow::newPage() {
    if (painter_) writer_.newPage();
    ++page_;
    y_ = top_;
    paintChrome();
    if (chrome_.totalPages > 0) reportProgress(static_cast<double>(page_ - 1) / chrome_.totalPages);
}

void ReportPageFlow::ensureSpace(double height) {
    if (!pending_.empty()) {
        placeHeading(height);
        return;
    }
    if (y_ > top_ && y_ + height > bottom_) newPage();
}

void ReportPageFlow::addSpace(double height) {
    if (!pending_.empty()) {
        pending_.back().spaceAfter += height;
        return;
    }
    y_ = std::min(y_ + height, bottom_);
}

void ReportPageFlow::addHeading(const QString& html, double spaceAfter, double fontPt) {
    pending_.push_back({html, spaceAfter, fontPt}); // with any heading before it: all go with what follows
}

void ReportPageFlow::placeHeading(double next) {
    if (pending_.empty()) return;
    const std::vector<PendingHeading> headings = std::exchange(pending_, {});
    double h = 0;
    for (const auto& p : headings) h += measureHtml(p.html, contentWidth(), p.fontPt) + p.spaceAfter;
    next = std::min(next, (bottom_ - top_) - h); // what is taller than a page starts at the top of one
    if (y_ > top_ && y_ + h + next > bottom_) newPage();
    for (const auto& p : headings) {
        drawHtml(p.html, left_, y_, contentWidth(), p.fontPt);
        y_ += measureHtml(p.html, contentWidth(), p.fontPt) + p.spaceAfter;
    }
}

void ReportPageFlow::paintChrome() {
    if (!painter_) return;
    painter_->save();
    painter_->setFont(reportFont(7.0));
    painter_->setPen(QColor(0x5f, 0x6b, 0x76));
    const double headerBase = mm(12.0);
    const double lineHeight = mm(5.0);
    if (page_ > 1) {
        const QRectF header(left_, headerBase - lineHeight, right_ - left_, lineHeight);
        painter_->drawText(header, Qt::AlignLeft | Qt::AlignBottom, chrome_.headerLeft);
        painter_->drawText(header, Qt::AlignRight | Qt::AlignBottom, chrome_.headerRight);
        painter_->setPen(QPen(QColor(0xc5, 0xcf, 0xd8), mm(0.25)));
        painter_->drawLine(QPointF(left_, headerBase + mm(1.2)), QPointF(right_, headerBase + mm(1.2)));
    }
    const double footerTop = pageHeight_ - mm(12.0);
    painter_->setPen(QPen(QColor(0xc5, 0xcf, 0xd8), mm(0.25)));
    painter_->drawLine(QPointF(left_, footerTop - mm(1.2)), QPointF(right_, footerTop - mm(1.2)));
    painter_->setPen(QColor(0x5f, 0x6b, 0x76));
    const QRectF footer(left_, footerTop, right_ - left_, lineHeight);
    painter_->drawText(footer, Qt::AlignLeft | Qt::AlignTop, chrome_.footerLeft);
    const QString pageText = chrome_.totalPages > 0
                                 ? QStringLiteral("Page %1 of %2").arg(page_).arg(chrome_.totalPages)
                                 : QStringLiteral("Page %1").arg(page_);
    painter_->drawText(footer, Qt::AlignRight | Qt::AlignTop, pageText);
    painter_->restore();
}

void ReportPageFlow::layoutHtml(QTextDocument& doc, const QString& html, double width, double fontPt) const {
    // Metrics of the PDF device, not of the (offscreen) screen: otherwise text is laid out at 96 dpi.
    doc.documentLayout()->setPaintDevice(&writer_);
    doc.setDocumentMargin(0);
    doc.setDefaultFont(reportFont(fontPt));
    doc.setDefaultStyleSheet(styleSheet(fontPt));
    // Lines break between words only: a number with its unit (joined by no-break spaces) is never split
    // mid-value to fit a narrow cell; a table column is as wide as its widest such word.
    QTextOption option = doc.defaultTextOption();
    option.setWrapMode(QTextOption::WordWrap);
    doc.setDefaultTextOption(option);
    doc.setHtml(html);
    doc.setTextWidth(width);
}

double ReportPageFlow::measureHtml(const QString& html, double width, double fontPt) const {
    QTextDocument doc;
    layoutHtml(doc, html, width, fontPt);
    return doc.size().height();
}

void ReportPageFlow::drawHtml(const QString& html, double x, double y, double width, double fontPt) {
    if (!painter_) return;
    QTextDocument doc;
    layoutHtml(doc, html, width, fontPt);
    painter_->save();
    painter_->translate(x, y);
    doc.drawContents(painter_);
    painter_->restore();
}

void ReportPageFlow::drawLines(QTextDocument& doc, double from, double to) {
    if (!painter_) return;
    painter_->save();
    painter_->translate(left_, y_ - from);
    // Half a device pixel inside the line bounds: the lines touching the clip from outside are not drawn
    // at all (a clip only hides them; their text would still be in the PDF).
    doc.drawContents(painter_, QRectF(0, from + 0.5, contentWidth(), std::max(0.0, to - from - 1.0)));
    painter_->restore();
}

void ReportPageFlow::addHtml(const QString& html, double fontPt) {
    QTextDocument doc;
    layoutHtml(doc, html, contentWidth(), fontPt);
    const double h = doc.size().height();
    if (h <= (bottom_ - top_) * 0.9) {
        placeHeading(h);
        ensureSpace(h);
        drawHtml(html, left_, y_, contentWidth(), fontPt);
        y_ += h;
        return;
    }
    // Taller than (nearly) a page: split between lines, each page filled to its text area's foot.
    std::vector<double> breaks; // document y below each line
    for (QTextBlock b = doc.begin(); b != doc.end(); b = b.next()) {
        const QRectF box = doc.documentLayout()->blockBoundingRect(b);
        const QTextLayout* layout = b.layout();
        for (int i = 0; layout && i < layout->lineCount(); ++i)
            breaks.push_back(box.top() + layout->lineAt(i).y() + layout->lineAt(i).height());
    }
    breaks.push_back(h);
    std::sort(breaks.begin(), breaks.end());
    placeHeading(std::min(h, mm(15)));
    double from = 0;
    while (from < h - 0.5) {
        const double room = bottom_ - y_;
        double to = from;
        for (double b : breaks)
            if (b > from + 0.5 && b - from <= room) to = b;
        if (to <= from) {
            if (y_ > top_) {
                newPage();
                continue;
            }
            // One line taller than a page: draw it alone.
            to = *std::upper_bound(breaks.begin(), breaks.end(), from + 0.5);
        }
        drawLines(doc, from, to);
        y_ += to - from;
        from = to;
        if (from < h - 0.5) newPage();
    }
}

std::vector<double> ReportPageFlow::fittedWidths(const ReportTable& t) const {
    std::size_t columns = t.header.size();
    for (const auto& row : t.rows) columns = std::max<std::size_t>(columns, static_cast<std::size_t>(row.size()));
    std::vector<double> widths(t.widthsPercent.begin(), t.widthsPercent.end());
    const double total = contentWidth();
    if (columns == 0 || total <= 0 || widths.size() < columns) return widths;
    widths.resize(columns);
    // The longest word of every cell of a column as the PDF lays it out: words end at spaces, line
    // breaks and zero-width spaces (htmlBreakable's break points), and after a hyphen before a letter;
    // a no-break space joins ("12.5 ± 0.3", "3 MiB").
    QFont regular = reportFont(t.fontPt), bold = regular;
    bold.setBold(true);
    const QFontMetricsF regularMetrics(regular, &writer_), boldMetrics(bold, &writer_);
    auto longestWord = [](const QString& html, const QFontMetricsF& metrics) {
        const QString text = QTextDocumentFragment::fromHtml(html).toPlainText();
        double longest = 0;
        qsizetype start = 0;
        for (qsizetype i = 0; i <= text.size(); ++i) {
            const bool end = i == text.size();
            const QChar ch = end ? QChar() : text.at(i);
            const bool space = !end && (ch == QLatin1Char(' ') || ch == QLatin1Char('\n') || ch == QChar(0x2028) ||
                                        ch == QChar(0x2029) || ch == QChar(0x200B) || ch == QLatin1Char('\t'));
            const bool afterHyphen = !end && i > start && text.at(i - 1) == QLatin1Char('-') && ch.isLetter();
            if (end || space || afterHyphen) {
                if (i > start) longest = std::max(longest, metrics.horizontalAdvance(text.mid(start, i - start)));
                start = space ? i + 1 : i;
            }
        }
        return longest;
    };
    // A cell's padding and border on both sides (3 and 1 CSS pixels, scaled to the PDF's dots), and a
    // little room for Qt's rounding.
    const double perPixel = writer_.logicalDpiX() / 96.0;
    const double chrome = (2 * 3 + 2 * 1 + 2) * perPixel;
    std::vector<double> least(columns, 0.0);
    auto widen = [&](const QStringList& cells, bool header) {
        for (qsizetype c = 0; c < cells.size(); ++c) {
            const bool strong = header || cells[c].contains(QLatin1String("<b>"));
            const double w = longestWord(cells[c], strong ? boldMetrics : regularMetrics) * 1.02 + chrome;
            least[static_cast<std::size_t>(c)] = std::max(least[static_cast<std::size_t>(c)], 100.0 * w / total);
        }
    };
    if (t.headerRow) widen(t.header, true);
    for (const auto& row : t.rows) widen(row, false);
    // Columns below their least width get it; the others share what is left in their own proportions,
    // never below theirs (repeated, as narrowing one may take it below its least).
    const double sum = std::accumulate(widths.begin(), widths.end(), 0.0);
    std::vector<bool> pinned(columns, false);
    for (bool changed = true; changed;) {
        changed = false;
        double pinnedSum = 0, freeSum = 0;
        for (std::size_t c = 0; c < columns; ++c) (pinned[c] ? pinnedSum : freeSum) += pinned[c] ? least[c] : t.widthsPercent[c];
        const double scale = freeSum > 0 ? std::max(0.0, sum - pinnedSum) / freeSum : 0.0;
        for (std::size_t c = 0; c < columns; ++c) {
            widths[c] = pinned[c] ? least[c] : t.widthsPercent[c] * scale;
            if (!pinned[c] && widths[c] < least[c]) {
                pinned[c] = true;
                changed = true;
            }
        }
    }
    // Words that cannot all fit: every column at its least width, scaled to the page (Qt breaks them).
    const double fitted = std::accumulate(widths.begin(), widths.end(), 0.0);
    if (fitted > sum + 0.01)
        for (double& w : widths) w *= sum / fitted;
    return widths;
}

QString ReportPageFlow::tableHtml(const ReportTable& t, const std::vector<double>& widths, std::size_t from, std::size_t to) const {
    // cellspacing 0 + a 1 px border draws hairline grid lines; Qt's rich text has no border-collapse.
    QString html = QStringLiteral("<table width=\"100%\" cellspacing=\"0\" cellpadding=\"3\" border=\"0\" "
                                  "class=\"grid\">");
    auto cell = [&](const QString& tag, const QString& content, std::size_t column, const QString& bg) {
        QString attrs;
        if (column < widths.size()) attrs += QStringLiteral(" width=\"%1%\"").arg(widths[column], 0, 'f', 2);
        const bool right = column < t.alignRight.size() && t.alignRight[column];
        attrs += right ? QStringLiteral(" align=\"right\"") : QStringLiteral(" align=\"left\"");
        if (!bg.isEmpty()) attrs += QStringLiteral(" bgcolor=\"%1\"").arg(bg);
        return QStringLiteral("<%1%2 valign=\"top\">%3</%1>").arg(tag, attrs, content);
    };
    if (t.headerRow) {
        html += QStringLiteral("<tr>");
        for (int c = 0; c < t.header.size(); ++c)
            html += cell(QStringLiteral("th"), t.header[c], static_cast<std::size_t>(c), QStringLiteral("#dfe7ef"));
        html += QStringLiteral("</tr>");
    }
    for (std::size_t r = from; r < to; ++r) {
        QString bg = r < t.rowBackground.size() ? t.rowBackground[r] : QString();
        if (bg.isEmpty() && t.zebra && (r % 2 == 1)) bg = QStringLiteral("#f4f7fa");
        html += QStringLiteral("<tr>");
        for (int c = 0; c < t.rows[r].size(); ++c) html += cell(QStringLiteral("td"), t.rows[r][c], static_cast<std::size_t>(c), bg);
        html += QStringLiteral("</tr>");
    }
    return html + QStringLiteral("</table>");
}

void ReportPageFlow::addTable(const ReportTable& t) {
    const std::vector<double> widths = fittedWidths(t);
    std::size_t from = 0;
    const std::size_t n = t.rows.size();
    if (n == 0) {
        addHtml(tableHtml(t, widths, 0, 0), t.fontPt);
        return;
    }
    // A heading stays with the table's header and first rows.
    placeHeading(measureHtml(tableHtml(t, widths, 0, std::min<std::size_t>(n, 3)), contentWidth(), t.fontPt));
    while (from < n) {
        // The most rows that fit below the cursor (at least one, on a fresh page).
        const double room = bottom_ - y_;
        std::size_t fit = 0;
        double fitHeight = 0;
        std::size_t lo = from + 1, hi = n;
        while (lo <= hi) {
            const std::size_t mid = (lo + hi) / 2;
            const double h = measureHtml(tableHtml(t, widths, from, mid), contentWidth(), t.fontPt);
            if (h <= room) {
                fit = mid;
                fitHeight = h;
                lo = mid + 1;
            } else {
                hi = mid - 1;
            }
        }
        // Never leave a header with one or two orphaned rows at the foot of a page.
        const bool orphan = fit != 0 && fit < n && fit - from < 3 && y_ > top_;
        // Nor one or two rows alone at the top of the next page: they come with a few of their own.
        if (!orphan && fit < n && n - fit < 3 && fit - from > 3) {
            fit = std::max(from + 3, n - 3);
            fitHeight = measureHtml(tableHtml(t, widths, from, fit), contentWidth(), t.fontPt);
        }
        if (fit == 0 || orphan) {
            if (y_ > top_) {
                newPage();
                continue;
            }
            fit = from + 1; // a single row taller than a page: draw it and let it clip
            fitHeight = measureHtml(tableHtml(t, widths, from, fit), contentWidth(), t.fontPt);
        }
        drawHtml(tableHtml(t, widths, from, fit), left_, y_, contentWidth(), t.fontPt);
        y_ += fitHeight;
        from = fit;
        if (from < n) newPage();
    }
}

void ReportPageFlow::addPlots(const std::vector<PlotFactory>& plots, double height) {
    if (plots.empty()) return;
    placeHeading(height);
    ensureSpace(height);
    const double gap = mm(kPlotGapMm);
    const double width = (contentWidth() - gap * static_cast<double>(plots.size() - 1)) / static_cast<double>(plots.size());
    const double scale = plotScale();
    const int plotW = static_cast<int>(width / scale);
    const int plotH = static_cast<int>(height / scale);
    for (std::size_t i = 0; i < plots.size(); ++i) {
        const PlotRequest request{plots[i], plotW, plotH};
        if (!painter_) {
            requests_.push_back(request);
            continue;
        }
        if (!plotPainter_) throw std::logic_error("the report's page flow paints without a plot painter");
        painter_->save();
        painter_->translate(left_ + static_cast<double>(i) * (width + gap), y_);
        painter_->scale(scale, scale);
        painter_->setMode(QCPPainter::pmVectorized);
        painter_->setMode(QCPPainter::pmNonCosmetic);
        plotPainter_(request, *painter_);
        painter_->restore();
    }
    y_ += height;
}

void paintPlot(const PlotRequest& request, QCPPainter& painter, const ReportPageFlow::PlotObserver& observer) {
    const std::unique_ptr<QCustomPlot> plot = request.make();
    plot->resize(request.widthPx, request.heightPx);
    fitTickLabels(*plot, request.widthPx, request.heightPx);
    plot->toPainter(&painter, request.widthPx, request.heightPx);
    if (observer) observer(*plot, request.widthPx, request.heightPx);
}

} // namespace trainio::ui
