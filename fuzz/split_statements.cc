// Writes each statement of SQL scripts to a file of its own, split by floe's own splitter
// (sql::SplitStatements), for seed corpora of the SQL targets: fuzz/run.sh makes the
// sql_exec target's seeds from PostgreSQL's regression-test scripts so at run time (they are
// never copied into the repository).
//
// usage: fuzz_split_statements OUTDIR SCRIPT...
// Each statement goes to OUTDIR/<script name>-<n>.sql with its ';'. Statements longer than
// 16 KiB, and psql's backslash commands, are left out. Exits 1 naming the path when a script
// cannot be read or a file cannot be written.

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <string_view>

#include "floe/sql/parser.h"

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s OUTDIR SCRIPT...\n", argv[0]);
    return 1;
  }
  const std::filesystem::path out_dir = argv[1];
  std::error_code ec;
  std::filesystem::create_directories(out_dir, ec);
  int written = 0;
  for (int i = 2; i < argc; ++i) {
    const std::filesystem::path script = argv[i];
    std::ifstream in(script, std::ios::binary);
    if (!in) {
      std::fprintf(stderr, "cannot read %s\n", script.c_str());
      return 1;
    }
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    int n = 0;
    for (const floe::sql::StatementSpan& span : floe::sql::SplitStatements(text)) {
      std::string_view statement(text.data() + span.begin, span.end - span.begin);
      if (statement.size() > 16384 || statement.find('\\') == 0) continue;
      const std::filesystem::path path =
          out_dir / (script.stem().string() + "-" + std::to_string(++n) + ".sql");
      std::ofstream out(path, std::ios::binary | std::ios::trunc);
      out << statement << ";\n";
      if (!out) {
        std::fprintf(stderr, "cannot write %s\n", path.c_str());
        return 1;
      }
      ++written;
    }
  }
  std::printf("%d statements written to %s\n", written, out_dir.c_str());
  return 0;
}
