// Loading user plugins (plugin.hpp): dlopen, a version check, registration, and a check that
// no registered material was replaced.
#include "softgrad/plugin.hpp"

#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <map>
#include <mutex>
#include <set>
#include <string_view>

#include "softgrad/errors.hpp"
#include "softgrad/log.hpp"

namespace softgrad {
namespace {

// Re-opens the shared library this code is part of with RTLD_GLOBAL (RTLD_NOLOAD: never loads
// anything new); nothing to do when softgrad is linked into the program itself.
void promote_library_to_global() {
  Dl_info info{};
  if (!dladdr(reinterpret_cast<void*>(&promote_library_to_global), &info) || !info.dli_fname)
    return;
  if (void* self = dlopen(info.dli_fname, RTLD_NOW | RTLD_NOLOAD | RTLD_GLOBAL)) dlclose(self);
}

std::mutex& plugins_mutex() {
  static std::mutex m;
  return m;
}

std::set<std::string>& loaded_plugins() {
  static std::set<std::string> files;
  return files;
}

std::map<std::string, std::shared_ptr<const MaterialModel>> registered() {
  std::map<std::string, std::shared_ptr<const MaterialModel>> by_name;
  for (auto& m : all_materials()) by_name[m->name()] = m;
  return by_name;
}

/// The file's contents, read through `fd`, after checking who can have written it.
/// @throws InputError (prefixed with `where`) for a file that is not regular, is another user's
/// (not root's), is writable by everyone, or by its group when another user owns it.
std::string trusted_contents(int fd, const std::string& where) {
  struct stat st {};
  if (fstat(fd, &st) != 0) throw InputError(where + ": cannot inspect it: " + std::strerror(errno));
  if (S_ISDIR(st.st_mode)) throw InputError(where + " is a folder, not a shared library");
  if (!S_ISREG(st.st_mode)) throw InputError(where + " is not a regular file");
  const uid_t me = geteuid();
  if (st.st_uid != me && st.st_uid != 0)
    throw InputError(where + " belongs to another user (uid " + std::to_string(st.st_uid) +
                     "): loading it would run their code as you; copy it to a file of yours "
                     "if you trust it");
  if (st.st_mode & S_IWOTH)
    throw InputError(where +
                     " is writable by every user, so anyone may have replaced its "
                     "code; 'chmod o-w' it if you trust it");
  if (st.st_uid != me && (st.st_mode & S_IWGRP))
    throw InputError(where +
                     " is writable by its group and not yours; 'chmod g-w' it if you "
                     "trust it");
  constexpr off_t kMaxBytes = off_t(1) << 30;
  if (st.st_size > kMaxBytes) throw InputError(where + " is larger than 1 GiB: not a plugin");
  std::string bytes(static_cast<size_t>(st.st_size), '\0');
  size_t got = 0;
  while (got < bytes.size()) {
    const ssize_t n = pread(fd, bytes.data() + got, bytes.size() - got, static_cast<off_t>(got));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) throw InputError(where + ": cannot read it: " + std::strerror(errno));
    got += static_cast<size_t>(n);
  }
  return bytes;
}

/// Whether the ELF image `elf` is a softgrad plugin for this machine and this version; else why
/// not. Read from the file, before the loader runs any of its code: an ELF shared library whose
/// dynamic symbols define the entry point softgrad_register_plugin and the data
/// softgrad_plugin_version, the text of SOFTGRAD_VERSION it was built with.
std::string elf_plugin_problem(std::string_view elf) {
  const auto at = [&](size_t offset, size_t size) -> const char* {
    return offset <= elf.size() && size <= elf.size() - offset ? elf.data() + offset : nullptr;
  };
  Elf64_Ehdr eh;
  if (!at(0, sizeof eh) || std::memcmp(elf.data(), ELFMAG, SELFMAG) != 0)
    return "is not a shared library (not an ELF file)";
  std::memcpy(&eh, elf.data(), sizeof eh);
  if (eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_ident[EI_DATA] != ELFDATA2LSB ||
      eh.e_machine != EM_X86_64)
    return "is an ELF file for another kind of machine";
  if (eh.e_type != ET_DYN) return "is not a shared library (an ELF file of another type)";
  if (eh.e_shentsize != sizeof(Elf64_Shdr) ||
      !at(eh.e_shoff, size_t(eh.e_shnum) * sizeof(Elf64_Shdr)))
    return "is a damaged ELF file (its section table lies outside it)";
  const auto section = [&](size_t i) {
    Elf64_Shdr sh;
    std::memcpy(&sh, elf.data() + eh.e_shoff + i * sizeof sh, sizeof sh);
    return sh;
  };
  std::map<std::string_view, Elf64_Sym> found;
  for (size_t i = 0; i < eh.e_shnum; ++i) {
    const Elf64_Shdr symtab = section(i);
    if (symtab.sh_type != SHT_DYNSYM || symtab.sh_link >= eh.e_shnum) continue;
    const Elf64_Shdr strtab = section(symtab.sh_link);
    const char* names = at(strtab.sh_offset, strtab.sh_size);
    if (!at(symtab.sh_offset, symtab.sh_size) || !names || strtab.sh_size == 0)
      return "is a damaged ELF file (its symbol table lies outside it)";
    for (size_t k = 0; k + sizeof(Elf64_Sym) <= symtab.sh_size; k += sizeof(Elf64_Sym)) {
      Elf64_Sym sym;
      std::memcpy(&sym, elf.data() + symtab.sh_offset + k, sizeof sym);
      if (sym.st_shndx == SHN_UNDEF || sym.st_name >= strtab.sh_size) continue;
      const size_t room = strtab.sh_size - sym.st_name;
      const std::string_view name(names + sym.st_name, strnlen(names + sym.st_name, room));
      if (name == "softgrad_register_plugin" || name == "softgrad_plugin_version")
        found[name] = sym;
    }
  }
  const auto version = found.find("softgrad_plugin_version");
  if (!found.count("softgrad_register_plugin") || version == found.end())
    return "is not a softgrad plugin: it defines no entry point (SOFTGRAD_PLUGIN in "
           "softgrad/plugin.hpp)";
  // The version text, where the symbol's section puts it in the file.
  const Elf64_Sym& v = version->second;
  if (ELF64_ST_TYPE(v.st_info) != STT_OBJECT)
    return "was built with an earlier softgrad (its version is not readable before it runs); "
           "rebuild it against softgrad " SOFTGRAD_VERSION;
  const Elf64_Shdr home = v.st_shndx < eh.e_shnum ? section(v.st_shndx) : Elf64_Shdr{};
  const char* text = home.sh_type == SHT_PROGBITS && v.st_value >= home.sh_addr &&
                             v.st_value - home.sh_addr <= home.sh_size &&
                             v.st_size <= home.sh_size - (v.st_value - home.sh_addr)
                         ? at(home.sh_offset + (v.st_value - home.sh_addr), v.st_size)
                         : nullptr;
  if (!text || v.st_size == 0 || v.st_size > 64)
    return "is a damaged ELF file (its version mark lies outside it)";
  const std::string built_with(text, strnlen(text, v.st_size));
  if (built_with != SOFTGRAD_VERSION)
    return "was built with softgrad " + printable_message(built_with) + ", this is softgrad " +
           SOFTGRAD_VERSION + "; rebuild it against this version";
  return "";
}

}  // namespace

bool plugin_loaded(const std::filesystem::path& file) {
  std::error_code ec;
  const std::filesystem::path canonical = std::filesystem::canonical(file, ec);
  if (ec) return false;
  std::lock_guard<std::mutex> lock(plugins_mutex());
  return loaded_plugins().count(canonical.string()) > 0;
}

std::vector<std::string> loaded_plugin_files() {
  std::lock_guard<std::mutex> lock(plugins_mutex());
  return {loaded_plugins().begin(), loaded_plugins().end()};
}

std::vector<std::string> load_plugin(const std::filesystem::path& file) {
  const std::string where = "plugin '" + file.string() + "'";
  std::error_code ec;
  if (!std::filesystem::exists(file, ec)) throw InputError(where + ": no such file");
  const std::string canonical = std::filesystem::canonical(file, ec).string();
  if (ec) throw InputError(where + ": " + ec.message());
  std::lock_guard<std::mutex> lock(plugins_mutex());
  if (loaded_plugins().count(canonical)) return {};
  // Checked on an open descriptor, and loaded through the same descriptor (/proc/self/fd), so
  // the file checked is the file loaded even if the path is replaced in between.
  const int fd = open(canonical.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) throw InputError(where + ": cannot open it: " + std::strerror(errno));
  struct CloseFd {
    int fd;
    ~CloseFd() { close(fd); }
  } close_fd{fd};
  const std::string problem = elf_plugin_problem(trusted_contents(fd, where));
  if (!problem.empty()) throw InputError(where + " " + problem);
  // The loader knows a library by the name it was opened with: a second plugin opened as the
  // same "/proc/self/fd/N" would be taken for the first one. Each load gets a number of its own.
  static std::set<int> used_numbers;
  int number = fcntl(fd, F_DUPFD_CLOEXEC, 64);
  while (number >= 0 && used_numbers.count(number)) {
    const int next = fcntl(fd, F_DUPFD_CLOEXEC, number + 1);
    close(number);
    number = next;
  }
  if (number < 0) throw InputError(where + ": cannot open it: " + std::strerror(errno));
  used_numbers.insert(number);
  const CloseFd close_number{number};
  const std::string opened = "/proc/self/fd/" + std::to_string(number);

  // A plugin calls the library's functions: when libsoftgrad came in privately (as the Python
  // module's dependency), make its symbols visible to what is loaded next.
  promote_library_to_global();
  // RTLD_NOW: a symbol the program lacks is an error here, not a crash in the middle of a run.
  void* handle = dlopen(opened.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char* reason = dlerror();
    throw InputError(where + ": cannot load it: " + (reason ? reason : "unknown reason"));
  }
  using RegisterFn = void (*)();
  const auto register_fn = reinterpret_cast<RegisterFn>(dlsym(handle, "softgrad_register_plugin"));
  if (!register_fn) {
    dlclose(handle);
    throw InputError(where +
                     " is not a softgrad plugin: it defines no entry point (SOFTGRAD_PLUGIN in "
                     "softgrad/plugin.hpp)");
  }

  const auto before = registered();
  register_fn();
  loaded_plugins().insert(canonical);  // its code now backs registered models: never unloaded
  std::vector<std::string> added;
  std::string replaced;
  for (const auto& [name, model] : registered()) {
    const auto old = before.find(name);
    if (old == before.end()) {
      added.push_back(name);
    } else if (old->second != model) {
      register_material_model(old->second);  // keep the one already in use
      replaced += (replaced.empty() ? "'" : ", '") + name + "'";
    }
  }
  if (!replaced.empty())
    throw InputError(where + " registers " + replaced +
                     ", a name already registered; rename its material");
  if (added.empty()) log(LogLevel::Warn, where + " registered no material");
  return added;
}

}  // namespace softgrad
