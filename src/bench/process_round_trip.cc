#include "bench/process_round_trip.h"

#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <numeric>
#include <string>
#include <vector>

namespace signet::bench {
namespace {

bool Transfer(int fd, bool send_first) {
  char byte = 'x';
  auto io = [&](bool sending) {
    for (;;) {
      ssize_t n = sending ? write(fd, &byte, 1) : read(fd, &byte, 1);
      if (n == 1) return true;
      if (n < 0 && errno == EINTR) continue;
      return false;
    }
  };
  return send_first ? io(true) && io(false) : io(false) && io(true);
}

}  // namespace

Result<RoundTrip> MeasureProcessRoundTrip(std::size_t round_trips) {
  constexpr std::size_t kWarmUp = 100;
  int fds[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0) {
    return MakeError(CKR_DEVICE_ERROR, std::string("socketpair: ") + std::strerror(errno));
  }
  pid_t child = fork();
  if (child < 0) {
    close(fds[0]);
    close(fds[1]);
    return MakeError(CKR_DEVICE_ERROR, std::string("fork: ") + std::strerror(errno));
  }
  if (child == 0) {
    close(fds[0]);
    while (Transfer(fds[1], /*send_first=*/false)) {
    }
    _exit(0);
  }
  close(fds[1]);
  std::vector<double> micros;
  micros.reserve(round_trips);
  bool ok = true;
  for (std::size_t i = 0; ok && i < kWarmUp + round_trips; ++i) {
    const auto start = std::chrono::steady_clock::now();
    ok = Transfer(fds[0], /*send_first=*/true);
    const auto took = std::chrono::steady_clock::now() - start;
    if (i >= kWarmUp) micros.push_back(std::chrono::duration<double, std::micro>(took).count());
  }
  close(fds[0]);  // the child reads EOF and exits
  waitpid(child, nullptr, 0);
  if (!ok || micros.empty()) return MakeError(CKR_DEVICE_ERROR, "socketpair ping-pong failed");
  RoundTrip result;
  result.round_trips = micros.size();
  result.mean_us = std::accumulate(micros.begin(), micros.end(), 0.0) / micros.size();
  std::nth_element(micros.begin(), micros.begin() + micros.size() / 2, micros.end());
  result.median_us = micros[micros.size() / 2];
  return result;
}

}  // namespace signet::bench
