// Ctrl-C within a step for Python's long calls (simulate, gradient, tangent, batches): while a
// CtrlC guard lives on the main thread, SIGINT raises the flag the scene's Newton solves poll
// (NewtonOptions::interrupt) and then hands the signal to Python, which raises
// KeyboardInterrupt when the call returns to it.
#include <csignal>

#include "handles.hpp"

namespace softgrad::python {
namespace {

volatile std::sig_atomic_t g_interrupt = 0;  // constant-initialised: safe in the handler

extern "C" void on_sigint(int) {
  g_interrupt = 1;
  PyErr_SetInterruptEx(SIGINT);  // async-signal-safe (Python >= 3.10)
}

/// Whether Python would raise on SIGINT here: the main thread, and a Python-level handler (the
/// default raises KeyboardInterrupt; SIG_IGN and SIG_DFL are left alone).
bool python_handles_sigint() {
  static const unsigned long main_thread =
      py::module_::import("threading").attr("main_thread")().attr("ident").cast<unsigned long>();
  if (PyThread_get_thread_ident() != main_thread) return false;
  static auto* getsignal = new py::object(py::module_::import("signal").attr("getsignal"));
  return PyCallable_Check((*getsignal)(SIGINT).ptr()) != 0;
}

}  // namespace

const volatile std::sig_atomic_t* interrupt_flag() { return &g_interrupt; }

CtrlC::CtrlC() {
  g_interrupt = 0;
  if (!python_handles_sigint()) return;
  struct sigaction action {};
  action.sa_handler = on_sigint;
  sigemptyset(&action.sa_mask);
  installed_ = sigaction(SIGINT, &action, &previous_) == 0;
}

CtrlC::~CtrlC() {
  if (installed_) sigaction(SIGINT, &previous_, nullptr);
  g_interrupt = 0;
}

bool CtrlC::raised() const { return g_interrupt != 0; }

void CtrlC::raise_if_raised() const {
  if (raised() && PyErr_CheckSignals() != 0) throw py::error_already_set();
}

}  // namespace softgrad::python
