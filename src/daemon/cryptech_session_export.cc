// pkey_export and pkey_import (29, 30).
#include "daemon/cryptech_session.h"

namespace signet::daemon {

using proto::hal::Error;

Error CryptechSession::PkeyExport(Reader&, Writer&) { return Error::kNotImplemented; }

Error CryptechSession::PkeyImport(Reader&, Writer&) { return Error::kNotImplemented; }

}  // namespace signet::daemon
