/// @file import_redirect.hpp
/// Pointing one loaded shared library's calls to a function at another function.
#pragma once

namespace softgrad {

/// Points the import of the function `symbol` by the loaded shared library whose file name
/// contains `library` at `replacement`: that library's calls to it go to `replacement` from then
/// on, whichever library defines the symbol and in whatever order libraries were loaded. Calls
/// from every other library are unchanged. It rewrites the import's slot in the library's global
/// offset table (ELF; Linux on x86-64 or AArch64).
/// @return the slot's previous value (the function the library called, or the dynamic linker's
///         stub when the import was not bound yet), or nullptr when the library is not loaded,
///         does not import `symbol`, or the platform is not supported: nothing changed.
void* redirect_import(const char* library, const char* symbol, void* replacement);

}  // namespace softgrad
