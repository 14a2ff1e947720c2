// What the live plots' and the presentation chart's tests check of storage-change and invocation labels
// (ui/plots/mark_labels): the newest is shown, and every shown label stays inside the axes, above the 100 %
// line and clear of every other.
#pragma once

#include <qcustomplot.h>

#include <QTest>

#include <algorithm>
#include <utility>
#include <vector>

namespace uitest {

inline void checkMarkLabels(QCustomPlot* p, const QString& newest, std::size_t atLeast = 1) {
    const QRectF axes = p->axisRect()->rect();
    const double line100 = p->yAxis->coordToPixel(100);
    std::vector<std::pair<QString, QRectF>> shown;
    for (int i = 0; i < p->itemCount(); ++i)
        if (auto* t = qobject_cast<QCPItemText*>(p->item(i)); t && t->visible())
            shown.emplace_back(t->text(), QRectF(t->topLeft->pixelPosition(), t->bottomRight->pixelPosition()));
    QVERIFY2(std::any_of(shown.begin(), shown.end(), [&](const auto& l) { return l.first == newest; }),
             "the newest change is not shown");
    QVERIFY2(shown.size() >= atLeast, qPrintable(QStringLiteral("%1 labels shown").arg(shown.size())));
    for (std::size_t i = 0; i < shown.size(); ++i) {
        const auto& [text, r] = shown[i];
        QVERIFY2(r.left() >= axes.left() && r.right() <= axes.right() + 1 && r.top() >= axes.top(),
                 qPrintable(text + QStringLiteral(" leaves the axes")));
        QVERIFY2(r.bottom() <= line100,
                 qPrintable(QStringLiteral("%1 reaches down to %2 px, the 100 % line is at %3 px").arg(text).arg(r.bottom()).arg(line100)));
        for (std::size_t j = i + 1; j < shown.size(); ++j)
            QVERIFY2(!r.intersects(shown[j].second), qPrintable(text + QStringLiteral(" over ") + shown[j].first));
    }
}

} // namespace uitest
