#include "solvers/cpu/import_redirect.hpp"

#include <cstdint>
#include <cstring>

#if defined(__linux__) && (defined(__x86_64__) || defined(__aarch64__))
#include <link.h>
#include <sys/mman.h>
#include <unistd.h>
#define SOFTGRAD_IMPORT_REDIRECT 1
#else
#define SOFTGRAD_IMPORT_REDIRECT 0
#endif

namespace softgrad {

#if SOFTGRAD_IMPORT_REDIRECT
namespace {

#if defined(__x86_64__)
constexpr unsigned kJumpSlot = R_X86_64_JUMP_SLOT;
constexpr unsigned kGlobalData = R_X86_64_GLOB_DAT;
#else
constexpr unsigned kJumpSlot = R_AARCH64_JUMP_SLOT;
constexpr unsigned kGlobalData = R_AARCH64_GLOB_DAT;
#endif

struct Request {
  const char* library;
  const char* symbol;
  void* replacement;
  void* previous = nullptr;
};

// The dynamic section's addresses: glibc relocates them in place on most targets but not on all;
// one below the load base is still relative to it.
std::uintptr_t absolute(std::uintptr_t base, ElfW(Addr) address) {
  return address < base ? base + address : address;
}

// Writes the slot; a slot in the RELRO segment (read-only once relocated, as with BIND_NOW) is
// made writable for the write and read-only again after it.
bool write_slot(void** slot, void* value, std::uintptr_t relro_begin, std::uintptr_t relro_end) {
  const auto at = reinterpret_cast<std::uintptr_t>(slot);
  if (at < relro_begin || at >= relro_end) {
    *slot = value;
    return true;
  }
  const auto page = static_cast<std::uintptr_t>(sysconf(_SC_PAGESIZE));
  void* start = reinterpret_cast<void*>(at & ~(page - 1));
  if (mprotect(start, page, PROT_READ | PROT_WRITE) != 0) return false;
  *slot = value;
  mprotect(start, page, PROT_READ);
  return true;
}

// Finds `symbol` among the relocations [begin, begin + bytes) of the given kinds and redirects
// the first match's slot.
template <class Relocation>
bool redirect_in(const Request& r, std::uintptr_t base, std::uintptr_t begin, std::size_t bytes,
                 const ElfW(Sym) * symbols, const char* names, bool jump_slots_only,
                 std::uintptr_t relro_begin, std::uintptr_t relro_end, void** previous) {
  const auto* relocations = reinterpret_cast<const Relocation*>(begin);
  for (std::size_t k = 0; k < bytes / sizeof(Relocation); ++k) {
    const auto type = static_cast<unsigned>(ELF64_R_TYPE(relocations[k].r_info));
    if (type != kJumpSlot && (jump_slots_only || type != kGlobalData)) continue;
    const auto index = ELF64_R_SYM(relocations[k].r_info);
    if (index == 0 || std::strcmp(names + symbols[index].st_name, r.symbol) != 0) continue;
    void** slot = reinterpret_cast<void**>(base + relocations[k].r_offset);
    void* old = *slot;
    if (!write_slot(slot, r.replacement, relro_begin, relro_end)) return false;
    *previous = old;
    return true;
  }
  return false;
}

int visit(dl_phdr_info* info, std::size_t, void* data) {
  auto& r = *static_cast<Request*>(data);
  if (!info->dlpi_name || !std::strstr(info->dlpi_name, r.library)) return 0;
  const std::uintptr_t base = info->dlpi_addr;
  const ElfW(Dyn)* dynamic = nullptr;
  std::uintptr_t relro_begin = 0, relro_end = 0;
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& segment = info->dlpi_phdr[i];
    if (segment.p_type == PT_DYNAMIC)
      dynamic = reinterpret_cast<const ElfW(Dyn)*>(base + segment.p_vaddr);
    if (segment.p_type == PT_GNU_RELRO) {
      relro_begin = base + segment.p_vaddr;
      relro_end = relro_begin + segment.p_memsz;
    }
  }
  if (!dynamic) return 1;
  const ElfW(Sym)* symbols = nullptr;
  const char* names = nullptr;
  std::uintptr_t plt = 0, other = 0;
  std::size_t plt_bytes = 0, other_bytes = 0;
  bool plt_rela = true, other_rela = true;
  for (const ElfW(Dyn)* d = dynamic; d->d_tag != DT_NULL; ++d) {
    switch (d->d_tag) {
      case DT_SYMTAB:
        symbols = reinterpret_cast<const ElfW(Sym)*>(absolute(base, d->d_un.d_ptr));
        break;
      case DT_STRTAB:
        names = reinterpret_cast<const char*>(absolute(base, d->d_un.d_ptr));
        break;
      case DT_JMPREL:
        plt = absolute(base, d->d_un.d_ptr);
        break;
      case DT_PLTRELSZ:
        plt_bytes = d->d_un.d_val;
        break;
      case DT_PLTREL:
        plt_rela = d->d_un.d_val == DT_RELA;
        break;
      case DT_RELA:
      case DT_REL:
        other = absolute(base, d->d_un.d_ptr);
        other_rela = d->d_tag == DT_RELA;
        break;
      case DT_RELASZ:
      case DT_RELSZ:
        other_bytes = d->d_un.d_val;
        break;
      default:
        break;
    }
  }
  if (!symbols || !names) return 1;
  const auto redirect = [&](std::uintptr_t table, std::size_t bytes, bool rela, bool plt_only) {
    return rela ? redirect_in<ElfW(Rela)>(r, base, table, bytes, symbols, names, plt_only,
                                          relro_begin, relro_end, &r.previous)
                : redirect_in<ElfW(Rel)>(r, base, table, bytes, symbols, names, plt_only,
                                         relro_begin, relro_end, &r.previous);
  };
  // Calls through the PLT (jump slots), else through the GOT (libraries built with -fno-plt).
  if (!(plt && redirect(plt, plt_bytes, plt_rela, true)) && other)
    redirect(other, other_bytes, other_rela, false);
  return 1;  // the first library that matches, found or not
}

}  // namespace

void* redirect_import(const char* library, const char* symbol, void* replacement) {
  Request request{library, symbol, replacement};
  dl_iterate_phdr(visit, &request);
  return request.previous;
}

#else

void* redirect_import(const char*, const char*, void*) { return nullptr; }

#endif

}  // namespace softgrad
