#include "app/interrupt.hpp"

namespace softgrad::app {
namespace {

volatile std::sig_atomic_t g_signal = 0;

extern "C" void on_signal(int number) {
  g_signal = number;
  std::signal(SIGINT, SIG_DFL);  // a second signal ends the program at once
  std::signal(SIGTERM, SIG_DFL);
}

void restore(int number, void (*previous)(int)) {
  std::signal(number, previous == SIG_ERR ? SIG_DFL : previous);
}

}  // namespace

InterruptHandler::InterruptHandler()
    : previous_int_(std::signal(SIGINT, on_signal)),
      previous_term_(std::signal(SIGTERM, on_signal)) {
  g_signal = 0;
}

InterruptHandler::~InterruptHandler() {
  restore(SIGINT, previous_int_);
  restore(SIGTERM, previous_term_);
}

volatile std::sig_atomic_t* InterruptHandler::flag() { return &g_signal; }

int InterruptHandler::exit_code() {
  return 128 + (g_signal != 0 ? static_cast<int>(g_signal) : SIGINT);
}

}  // namespace softgrad::app
