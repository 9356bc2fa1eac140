#include "bench/progress_bar.h"

#include <gtest/gtest.h>

#include <sstream>

namespace signet::bench {
namespace {

TEST(ProgressBar, RenderShowsFractionAndCounts) {
  EXPECT_EQ(ProgressBar::Render("keygen", 5, 10, 10), "keygen [#####.....]  50% 5/10");
  EXPECT_EQ(ProgressBar::Render("x", 12, 10, 4), "x [####] 100% 10/10");
  EXPECT_EQ(ProgressBar::Render("x", 0, 0, 4), "x [....]   0% 0/1");
}

TEST(ProgressBar, DrawsInPlaceAndErasesOnFinish) {
  std::ostringstream out;
  {
    ProgressBar bar("run", 4, &out);
    bar.Update(1);
    bar.Update(4);  // completion always redraws
    bar.Finish();
  }
  const std::string text = out.str();
  EXPECT_EQ(text.rfind('\r', 0), 0u);
  EXPECT_NE(text.find("100% 4/4"), std::string::npos);
  EXPECT_EQ(text.substr(text.size() - 4), "\r\x1b[K");
  EXPECT_EQ(text.find('\n'), std::string::npos);
}

TEST(ProgressBar, SilentWithoutStream) {
  ProgressBar bar("run", 4, nullptr);
  bar.Update(2);
  bar.Finish();  // nothing to check but that it neither draws nor crashes
  SUCCEED();
}

}  // namespace
}  // namespace signet::bench
