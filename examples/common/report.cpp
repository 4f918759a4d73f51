#include "report.h"

#include "cli.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <functional>
#include <sstream>
#include <stdexcept>

namespace trainer {

namespace {

std::string number_text(double v, int digits = 6) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*g", digits, v);
  return buf;
}

// One chart: a frame, y ticks, the epoch axis, and each series as a polyline with dots.
struct Series {
  std::string name, color;
  std::function<double(const EpochMetrics&)> value;
};

void chart(std::ostringstream& svg, double x0, double y0, double w, double h,
           const std::string& title, const std::vector<EpochMetrics>& rows,
           const std::vector<Series>& series) {
  double lo = INFINITY, hi = -INFINITY;
  for (const auto& s : series)
    for (const auto& r : rows) {
      lo = std::min(lo, s.value(r));
      hi = std::max(hi, s.value(r));
    }
  if (!(hi > lo)) {  // one point or a flat line: give it some room
    lo -= 0.5;
    hi += 0.5;
  }
  const double pad = 0.05 * (hi - lo);
  lo -= pad;
  hi += pad;
  const int n = static_cast<int>(rows.size());
  auto px = [&](int i) { return x0 + (n > 1 ? w * i / (n - 1) : w / 2); };
  auto py = [&](double v) { return y0 + h - h * (v - lo) / (hi - lo); };
  svg << "<text x='" << x0 + w / 2 << "' y='" << y0 - 12 << "' text-anchor='middle' font-size='14'>"
      << title << "</text>\n";
  svg << "<rect x='" << x0 << "' y='" << y0 << "' width='" << w << "' height='" << h
      << "' fill='none' stroke='#888'/>\n";
  for (int t = 0; t <= 4; ++t) {
    const double v = lo + (hi - lo) * t / 4;
    svg << "<text x='" << x0 - 6 << "' y='" << py(v) + 4 << "' text-anchor='end' font-size='11'>"
        << number_text(v, 4) << "</text>\n";
    svg << "<line x1='" << x0 << "' x2='" << x0 + w << "' y1='" << py(v) << "' y2='" << py(v)
        << "' stroke='#eee'/>\n";
  }
  for (int i = 0; i < n; ++i)
    svg << "<text x='" << px(i) << "' y='" << y0 + h + 16
        << "' text-anchor='middle' font-size='11'>" << rows[i].epoch << "</text>\n";
  svg << "<text x='" << x0 + w / 2 << "' y='" << y0 + h + 34
      << "' text-anchor='middle' font-size='12'>epoch</text>\n";
  for (size_t k = 0; k < series.size(); ++k) {
    const Series& s = series[k];
    svg << "<polyline fill='none' stroke='" << s.color << "' stroke-width='2' points='";
    for (int i = 0; i < n; ++i) svg << px(i) << "," << py(s.value(rows[i])) << " ";
    svg << "'/>\n";
    for (int i = 0; i < n; ++i)
      svg << "<circle cx='" << px(i) << "' cy='" << py(s.value(rows[i])) << "' r='3' fill='"
          << s.color << "'/>\n";
    // The legend sits top right, away from where falling loss curves start.
    svg << "<text x='" << x0 + w - 8 << "' y='" << y0 + 16 + 16 * k
        << "' text-anchor='end' font-size='12' fill='" << s.color << "'>" << s.name << "</text>\n";
  }
}

}  // namespace

void write_metrics_csv(const std::string& path, const std::vector<EpochMetrics>& rows) {
  std::ostringstream csv;
  csv << "epoch,train_loss,test_loss,test_accuracy,lr,seconds\n";
  for (const auto& r : rows)
    csv << r.epoch << ',' << number_text(r.train_loss, 9) << ',' << number_text(r.test_loss, 9)
        << ',' << number_text(r.test_accuracy, 9) << ',' << number_text(r.lr, 9) << ','
        << number_text(r.seconds, 6) << '\n';
  write_file_atomically(path, csv.str());
}

std::vector<EpochMetrics> read_metrics_csv(const std::string& path) {
  std::vector<EpochMetrics> rows;
  std::ifstream f(path);
  if (!f) return rows;
  std::string line;
  std::getline(f, line);  // header
  while (std::getline(f, line)) {
    EpochMetrics r;
    char c;
    std::istringstream s(line);
    if (s >> r.epoch >> c >> r.train_loss >> c >> r.test_loss >> c >> r.test_accuracy >> c >>
        r.lr >> c >> r.seconds)
      rows.push_back(r);
  }
  return rows;
}

void write_curves_svg(const std::string& path, const std::vector<EpochMetrics>& rows) {
  std::ostringstream svg;
  svg << "<svg xmlns='http://www.w3.org/2000/svg' width='900' height='360' "
         "font-family='sans-serif'>\n<rect width='900' height='360' fill='white'/>\n";
  if (!rows.empty()) {
    chart(svg, 70, 40, 340, 260, "loss", rows,
          {{"train", "#1f77b4", [](const EpochMetrics& r) { return r.train_loss; }},
           {"test", "#d62728", [](const EpochMetrics& r) { return r.test_loss; }}});
    chart(svg, 520, 40, 340, 260, "test accuracy (%)", rows,
          {{"test", "#2ca02c", [](const EpochMetrics& r) { return r.test_accuracy; }}});
  }
  svg << "</svg>\n";
  write_file_atomically(path, svg.str());
}

}  // namespace trainer
