#include "report/report_page_flow.h"

#include <qcustomplot.h>

#include <QAbstractTextDocumentLayout>
#include <QPdfWriter>
#include <QTextDocument>

#include <algorithm>
#include <stdexcept>

namespace trainio::ui {

namespace {

constexpr double kMarginSideMm = 17.0;
constexpr double kMarginTopMm = 20.0;
constexpr double kMarginBottomMm = 18.0;
constexpr double kPlotGapMm = 4.0;
const QString kFontFamily = QStringLiteral("DejaVu Sans");

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
                          "td, th { padding: 2px 4px; }")
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

QString htmlText(const QString& text) { return text.toHtmlEscaped(); }

QString htmlBreakable(const QString& text) {
    QString out = text.toHtmlEscaped();
    // A zero-width space is a line-break opportunity that prints as nothing.
    out.replace(QLatin1Char('/'), QStringLiteral("/\u200B"));
    out.replace(QLatin1Char('_'), QStringLiteral("_\u200B"));
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
    if (y_ > top_ && y_ + height > bottom_) newPage();
}

void ReportPageFlow::addSpace(double height) { y_ = std::min(y_ + height, bottom_); }

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

void ReportPageFlow::addHtml(const QString& html, double fontPt) {
    const double h = measureHtml(html, contentWidth(), fontPt);
    ensureSpace(h);
    drawHtml(html, left_, y_, contentWidth(), fontPt);
    y_ += h;
}

QString ReportPageFlow::tableHtml(const ReportTable& t, std::size_t from, std::size_t to) const {
    // cellspacing 0 + a 1 px border draws hairline grid lines; Qt's rich text has no border-collapse.
    QString html = QStringLiteral("<table width=\"100%\" cellspacing=\"0\" cellpadding=\"3\" border=\"0\" "
                                  "style=\"border-color: #c5cfd8; border-style: solid;\">");
    auto cell = [&](const QString& tag, const QString& content, std::size_t column, const QString& bg) {
        QString attrs;
        if (column < t.widthsPercent.size()) attrs += QStringLiteral(" width=\"%1%\"").arg(t.widthsPercent[column]);
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
    std::size_t from = 0;
    const std::size_t n = t.rows.size();
    if (n == 0) {
        addHtml(tableHtml(t, 0, 0), t.fontPt);
        return;
    }
    while (from < n) {
        // The most rows that fit below the cursor (at least one, on a fresh page).
        const double room = bottom_ - y_;
        std::size_t fit = 0;
        double fitHeight = 0;
        std::size_t lo = from + 1, hi = n;
        while (lo <= hi) {
            const std::size_t mid = (lo + hi) / 2;
            const double h = measureHtml(tableHtml(t, from, mid), contentWidth(), t.fontPt);
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
        if (fit == 0 || orphan) {
            if (y_ > top_) {
                newPage();
                continue;
            }
            fit = from + 1; // a single row taller than a page: draw it and let it clip
            fitHeight = measureHtml(tableHtml(t, from, fit), contentWidth(), t.fontPt);
        }
        drawHtml(tableHtml(t, from, fit), left_, y_, contentWidth(), t.fontPt);
        y_ += fitHeight;
        from = fit;
        if (from < n) newPage();
    }
}

void ReportPageFlow::addPlots(const std::vector<PlotFactory>& plots, double height) {
    if (plots.empty()) return;
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
    plot->toPainter(&painter, request.widthPx, request.heightPx);
    if (observer) observer(*plot, request.widthPx, request.heightPx);
}

} // namespace trainio::ui
