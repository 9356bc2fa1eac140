// `signet tokens | info`: the daemon's tokens (slot id, label, serial,
// flags, public key count) and the daemon itself (version, slots,
// mechanisms), for people or, with --json, for programs. Neither logs in.
#include <cstdio>
#include <memory>

#include "base/mechanism_table.h"
#include "base/printable.h"
#include "cli/commands.h"
#include "cli/output.h"
#include "signet/version.hpp"

namespace signet::cli {
namespace {

// TokenRow: one token as `tokens` shows it.
struct TokenRow {
  const client::SlotInfo* slot;
  // public_keys: the key objects a session without login sees (the public
  // halves of key pairs, and any key stored public). The wire has no count
  // of private objects, and counting them would need each token's PIN.
  std::size_t public_keys = 0;
};

Result<std::size_t> CountPublicKeys(client::Client& client, CK_SLOT_ID slot) {
  SIGNET_ASSIGN_OR_RETURN(client::Handle session, client.OpenSession(slot, CKF_SERIAL_SESSION));
  Result<std::vector<client::Handle>> keys =
      client.FindObjects(session, {client::UlongAttribute(CKA_CLASS, CKO_PUBLIC_KEY)});
  (void)client.CloseSession(session);  // the connection's end closes it anyway
  if (!keys.ok()) return keys.error();
  return keys->size();
}

Json UnavailableJson(const client::ServerInfo& info) {
  Json unavailable = Json::array();
  for (const client::UnavailableToken& token : info.unavailable_tokens) {
    unavailable.push_back({{"file", token.file}, {"reason", token.reason}});
  }
  return unavailable;
}

Status RunTokens(GlobalOptions& global, bool json) {
  SIGNET_ASSIGN_OR_RETURN(auto client, ConnectClient(global));
  SIGNET_ASSIGN_OR_RETURN(client::ServerInfo info, client->GetInfo());
  std::vector<TokenRow> rows;
  for (const client::SlotInfo& slot : info.slots) {
    if (!slot.token_present) continue;
    SIGNET_ASSIGN_OR_RETURN(std::size_t keys, CountPublicKeys(*client, slot.slot_id));
    rows.push_back({&slot, keys});
  }
  if (json) {
    Json tokens = Json::array();
    for (const TokenRow& row : rows) {
      tokens.push_back({{"slot", row.slot->slot_id},
                        {"label", TrimPadding(row.slot->label)},
                        {"serial", TrimPadding(row.slot->serial)},
                        {"flags", TokenFlagNames(row.slot->flags)},
                        {"public_keys", row.public_keys},
                        {"sessions", row.slot->session_count},
                        {"rw_sessions", row.slot->rw_session_count}});
    }
    PrintJson({{"tokens", std::move(tokens)}, {"unavailable_tokens", UnavailableJson(info)}});
    return OkStatus();
  }
  for (const client::UnavailableToken& token : info.unavailable_tokens) {
    std::printf("unavailable token: %s\n", PrintableText(token.reason).c_str());
  }
  if (rows.empty()) {
    std::printf("no tokens; create one with `signet init`\n");
    return OkStatus();
  }
  std::printf("%-5s %-32s %-16s %11s  %s\n", "slot", "label", "serial", "public-keys", "flags");
  for (const TokenRow& row : rows) {
    std::printf("%-5lu %-32s %-16s %11zu  %s\n", static_cast<unsigned long>(row.slot->slot_id),
                PrintableText(TrimPadding(row.slot->label)).c_str(),
                PrintableText(TrimPadding(row.slot->serial)).c_str(), row.public_keys,
                JoinNames(TokenFlagNames(row.slot->flags)).c_str());
  }
  return OkStatus();
}

// MechanismName: the table's CKM_ name, else the number in hex.
std::string MechanismName(CK_MECHANISM_TYPE type) {
  if (const MechanismRow* row = FindMechanismRow(type)) return std::string(row->name);
  char hex[32];
  std::snprintf(hex, sizeof hex, "0x%08lx", static_cast<unsigned long>(type));
  return hex;
}

Status RunInfo(GlobalOptions& global, bool json) {
  SIGNET_ASSIGN_OR_RETURN(auto client, ConnectClient(global));
  SIGNET_ASSIGN_OR_RETURN(client::ServerInfo info, client->GetInfo());
  std::size_t tokens = 0;
  for (const client::SlotInfo& slot : info.slots) tokens += slot.token_present ? 1 : 0;
  if (json) {
    Json mechanisms = Json::array();
    for (const client::MechanismInfo& m : info.mechanisms) {
      mechanisms.push_back({{"name", MechanismName(m.type)},
                            {"type", m.type},
                            {"min_key_size", m.min_key_size},
                            {"max_key_size", m.max_key_size},
                            {"flags", MechanismFlagNames(m.flags)}});
    }
    Json slots = Json::array();
    for (const client::SlotInfo& slot : info.slots) {
      slots.push_back({{"slot", slot.slot_id}, {"token_present", slot.token_present}});
      if (slot.token_present) {
        slots.back()["label"] = TrimPadding(slot.label);
        slots.back()["serial"] = TrimPadding(slot.serial);
      }
    }
    PrintJson({{"server_version", info.server_version},
               {"protocol_version", info.protocol_version},
               {"manufacturer", TrimPadding(info.manufacturer)},
               {"model", TrimPadding(info.model)},
               {"cli_version", kVersionString},
               {"slots", std::move(slots)},
               {"mechanisms", std::move(mechanisms)},
               {"unavailable_tokens", UnavailableJson(info)}});
    return OkStatus();
  }
  std::printf("signetd %s (protocol %u), %s %s; signet %s\n",
              PrintableText(info.server_version).c_str(), info.protocol_version,
              PrintableText(TrimPadding(info.manufacturer)).c_str(),
              PrintableText(TrimPadding(info.model)).c_str(), kVersionString);
  std::printf("slots %zu, tokens %zu, unavailable token files %zu\n", info.slots.size(), tokens,
              info.unavailable_tokens.size());
  std::printf("mechanisms %zu:\n", info.mechanisms.size());
  for (const client::MechanismInfo& m : info.mechanisms) {
    std::printf("  %-36s %5lu-%-5lu %s\n", MechanismName(m.type).c_str(),
                static_cast<unsigned long>(m.min_key_size),
                static_cast<unsigned long>(m.max_key_size),
                JoinNames(MechanismFlagNames(m.flags)).c_str());
  }
  return OkStatus();
}

}  // namespace

void AddTokenCommands(CLI::App& app, GlobalOptions& global, CommandAction* selected) {
  auto json = std::make_shared<bool>(false);
  CLI::App* tokens = app.add_subcommand(
      "tokens", "List the daemon's tokens: slot id, label, serial, public keys, flags");
  tokens->add_flag("--json", *json, "Print JSON");
  tokens->callback([&global, json, selected] {
    *selected = [&global, json] { return RunTokens(global, *json); };
  });
  CLI::App* info = app.add_subcommand("info", "Show the daemon: its version, slots and mechanisms");
  info->add_flag("--json", *json, "Print JSON");
  info->callback([&global, json, selected] {
    *selected = [&global, json] { return RunInfo(global, *json); };
  });
}

}  // namespace signet::cli
