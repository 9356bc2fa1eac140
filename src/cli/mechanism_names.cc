#include "cli/mechanism_names.h"

namespace signet::cli {

Result<const MechanismRow*> ParseMechanismName(std::string_view name) {
  if (const MechanismRow* row = FindMechanismByCliName(name)) return row;
  return MakeError(CKR_MECHANISM_INVALID,
                   "unknown mechanism '" + std::string(name) + "' (want " + MechanismNames() + ")");
}

std::string MechanismNames() {
  std::string names;
  for (const MechanismRow& row : kMechanismTable) {
    if (row.cli_name.empty()) continue;
    if (!names.empty()) names += ", ";
    names += row.cli_name;
  }
  return names;
}

}  // namespace signet::cli
