#include "bench/progress_bar.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <iostream>

namespace signet::bench {
namespace {
constexpr int kBarWidth = 30;
constexpr auto kRedrawInterval = std::chrono::milliseconds(100);
}  // namespace

ProgressBar::ProgressBar(std::string label, std::uint64_t total, std::ostream* out)
    : label_(std::move(label)), total_(std::max<std::uint64_t>(total, 1)), out_(out) {}

ProgressBar::~ProgressBar() { Finish(); }

ProgressBar ProgressBar::ForStderr(std::string label, std::uint64_t total) {
  return ProgressBar(std::move(label), total, isatty(STDERR_FILENO) ? &std::cerr : nullptr);
}

std::string ProgressBar::Render(const std::string& label, std::uint64_t done, std::uint64_t total,
                                int width) {
  total = std::max<std::uint64_t>(total, 1);
  done = std::min(done, total);
  const auto filled = static_cast<int>(done * static_cast<std::uint64_t>(width) / total);
  char pct[16];
  std::snprintf(pct, sizeof(pct), "%3d%%", static_cast<int>(done * 100 / total));
  return label + " [" + std::string(filled, '#') + std::string(width - filled, '.') + "] " + pct +
         " " + std::to_string(done) + "/" + std::to_string(total);
}

void ProgressBar::Update(std::uint64_t done) {
  if (out_ == nullptr) return;
  const auto now = std::chrono::steady_clock::now();
  if (drawn_ && done < total_ && now - last_draw_ < kRedrawInterval) return;
  last_draw_ = now;
  drawn_ = true;
  *out_ << '\r' << Render(label_, done, total_, kBarWidth) << std::flush;
}

void ProgressBar::Finish() {
  if (out_ == nullptr || !drawn_) return;
  // "\r ESC[K": back to column 0 and clear to end of line.
  *out_ << "\r\x1b[K" << std::flush;
  drawn_ = false;
}

}  // namespace signet::bench
