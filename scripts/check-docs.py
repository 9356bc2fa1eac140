#!/usr/bin/env python3
"""check-docs.py: fails when a comment or a doc no longer matches the tree.

Checks, over every C/C++ file git tracks (src, include, tests, fuzz) and the
docs (README.md, docs/, scripts/, cmake files):

1. misplaced: a comment block that starts with a name, in the project's
   style ("// Foo: ...", "// Foo returns ...", "// Foo() ..."), must sit
   directly above a declaration of Foo, or above a group whose first line
   names what follows ("// Foo and Bar: ..."). Catches a comment left above
   the wrong function when code moved or was renamed.
2. gone: a name written as a call, "Foo()" or "Foo::Bar()", any CamelCase
   word ("FooBar", "SetPIN") in any comment, a qualified name in the docs
   ("proto::FrameReader"), and the name that opens a comment block, must be
   an identifier somewhere
   in the code (comments and strings removed) or in the headers signet
   builds against (pkcs11.h, the wire schema). Catches a comment naming a
   function that was removed or renamed anywhere in the tree.
3. outside: no file may point outside the repository ("../shared", the seed
   files' directory); "seed NNN" must be described in docs/SEEDS.md and
   "issue N" in docs/ISSUES.md; a docs/X.md reference must exist, and so
   must its section when one is quoted (DESIGN.md "Crypto"); a path into
   the tree (core/key_pool.h, tests/e2e/x.cc) must name a file that exists.

Usage: scripts/check-docs.py [--root DIR]   (exit 1 and a list on findings)
A finding that is not one can be silenced on its line with "check-docs: ok"
(give the reason in the comment).
"""
import argparse
import os
import re
import subprocess
import sys

CODE_EXT = (".h", ".hpp", ".cc", ".cpp", ".c")
# Words that open prose, not declarations, although they look like names.
PROSE = {
    "OpenSSL", "BoringSSL", "LevelDB", "SoftHSMv2", "SoftHSM", "SQLite", "FlatBuffers",
    "GoogleTest", "GnuTLS", "PostgreSQL", "CMake", "OpenSSH", "OpenSC", "NSS", "PKCS",
    "JavaScript", "SunPKCS11", "TODO", "NOTE", "REQUIRES", "EXCLUDES", "NOLINT", "NOLINTNEXTLINE",
    "UBSan", "ASan", "TSan", "MiB", "KiB", "GiB", "IPv4", "IPv6", "PRs", "FreeBSD", "macOS",
    "GitHub", "LibFuzzer", "ModExp", "ModExpA7", "McCabe", "WebPKI", "DoS", "CPUs", "McGrew",
    # standard names (ASN.1 types, TLS messages, algorithms, people, tools)
    "DigestInfo", "PrivateKeyInfo", "SubjectPublicKeyInfo", "PrintableString", "KeyUpdate",
    "ChaCha20", "EdDSA", "PureEdDSA", "DeMillo", "FlatBuffer", "LeakSanitizer",
}
IDENT = r"[A-Za-z_][A-Za-z0-9_]*"
LEAD = re.compile(r"^\s*//+\s*`?(~?(?:%s::)*~?%s)(<[^>]*>)?(\(\))?`?(.?)(.?)" % (IDENT, IDENT))
# A CamelCase word in a comment (FooBar, SetPIN): one of our names, or prose
# listed in PROSE.
CAMEL = re.compile(r"(?<![\w./-])`?([A-Z][a-z0-9]+(?:[A-Z][a-z0-9]*)+)`?(?![\w./-])")
CALL = re.compile(r"(?<![\w.>:$])((?:%s::)*~?([A-Z][A-Za-z0-9_]*))\(\)" % IDENT)
SKIP_AFTER = re.compile(r"^\s*(#|namespace\b|}|$|//|/\*|public:|private:|protected:|extern \"C\")")


def git_files(root):
  """The files git tracks under `root`; every file when it is no checkout
  (a `git archive` of an old commit, to test this script against it)."""
  run = subprocess.run(["git", "-C", root, "ls-files"], capture_output=True, text=True)
  if run.returncode == 0 and run.stdout:
    names = run.stdout.splitlines()
  else:
    names = [os.path.relpath(os.path.join(d, f), root) for d, dirs, fs in os.walk(root)
             for f in fs if not d.startswith(os.path.join(root, "build"))]
  return [f for f in names if os.path.isfile(os.path.join(root, f))]


def strip_comments_and_strings(text):
  """Returns code with comments and string/char literals blanked."""
  out = []
  i, n = 0, len(text)
  while i < n:
    c = text[i]
    if text.startswith("//", i):
      j = text.find("\n", i)
      i = n if j < 0 else j
    elif text.startswith("/*", i):
      j = text.find("*/", i + 2)
      i = n if j < 0 else j + 2
    elif c == 'R' and text.startswith('R"', i) and (i == 0 or not text[i - 1].isalnum()):
      m = re.match(r'R"([^(]*)\(', text[i:])
      if m:
        end = text.find(")" + m.group(1) + '"', i)
        i = n if end < 0 else end + len(m.group(1)) + 2
        out.append('""')
      else:
        out.append(c)
        i += 1
    elif c in "\"'":
      j = i + 1
      while j < n and text[j] != c and text[j] != "\n":
        j += 2 if text[j] == "\\" else 1
      out.append(c + c)
      i = j + 1
    else:
      out.append(c)
      i += 1
  return "".join(out)


def known_identifiers(root, files):
  ids = set()
  for f in files:
    if f.endswith(CODE_EXT):
      with open(os.path.join(root, f), errors="replace") as fh:
        ids.update(re.findall(IDENT, strip_comments_and_strings(fh.read())))
    elif f.endswith(".fbs"):
      with open(os.path.join(root, f), errors="replace") as fh:
        for name in re.findall(r"\b(?:table|struct|union|enum)\s+(%s)" % IDENT, fh.read()):
          ids.update({name, "Create" + name, "Get" + name, "Verify" + name + "Buffer",
                      name + "Builder", name + "T"})
  for header in ("/usr/include/p11-kit-1/p11-kit/pkcs11.h", "/usr/include/p11-kit-1/p11-kit/pkcs11t.h"):
    if os.path.exists(header):
      with open(header, errors="replace") as fh:
        ids.update(re.findall(IDENT, fh.read()))
  return ids


def looks_like_name(token, sep, nxt):
  """True when a comment's first word is one of our declarations' names, not
  prose: PascalCase in the project's style (no underscores: C_Login,
  EVP_PKEY_new are the libraries' names), written as "Foo()", "Foo:" or
  "Foo verb"; a single capitalised word ("Keys:") only when the tree
  declares it and a declaration follows."""
  last = token.split("::")[-1].lstrip("~")
  if token in PROSE or last in PROSE or "_" in last or not last[0].isupper():
    return False
  if sep == "(":  # Foo()
    return True
  camel = bool(re.search(r"[a-z0-9][A-Z]", last)) or "::" in token
  if sep == ":" and nxt != ":":
    return camel or (bool(re.fullmatch(r"[A-Z][a-z0-9]+", last)) and last in LEAD_KNOWN)
  return sep == " " and camel


# A line that starts a declaration (not a statement inside a function body).
DECL = re.compile(r"""^\s*(template\b|struct\b|class\b|enum\b|union\b|using\b|typedef\b|
    static\b|inline\b|constexpr\b|consteval\b|const\b|virtual\b|explicit\b|friend\b|extern\b|
    \[\[|\#define\b|
    (?!(return|if|for|while|switch|case|do|else|goto|co_return|co_await|throw|delete|new)\b)
    [A-Za-z_][\w:<>,\s\*&]*?[\s\*&]~?[A-Za-z_][\w:]*\s*(\(|=|;|\{|\[|$)|
    ~?[A-Z][A-Za-z0-9]*[a-z]\w*\s*\()""", re.X)


LEAD_KNOWN = set()  # filled in main: single-word names declared in the tree
ID_TEXT = ""  # filled in main: every identifier, space-separated


def declaration_after(lines, i):
  """The declaration starting at lines[i] (up to 8 lines, to '{' or ';')."""
  text = []
  for line in lines[i:i + 8]:
    text.append(line)
    stripped = strip_comments_and_strings(line)
    if "{" in stripped or ";" in stripped:
      # A template header or an attribute line alone: keep reading.
      if re.match(r"^\s*template\s*<", stripped) and stripped.rstrip().endswith(">"):
        continue
      break
  return "\n".join(text)


def check_code(path, text, ids, findings):
  lines = text.split("\n")
  i = 0
  while i < len(lines):
    if not re.match(r"^\s*//", lines[i]):
      i += 1
      continue
    start = i
    while i < len(lines) and re.match(r"^\s*//", lines[i]):
      i += 1
    block = lines[start:i]
    first = block[0]
    if "check-docs: ok" in " ".join(block):
      continue
    m = LEAD.match(first)
    if not m:
      continue
    token, _tmpl, call, sep, nxt = m.groups()
    sep = "(" if call else sep
    if not looks_like_name(token, sep, nxt):
      continue
    last = token.split("::")[-1].lstrip("~")
    where = "%s:%d" % (path, start + 1)
    if last not in ids:
      findings.append("%s: gone: the comment opens with %s, which nothing in the tree declares"
                      % (where, token))
      continue
    if i >= len(lines) or SKIP_AFTER.match(lines[i]) or re.match(r"^\s*TEST(_F|_P)?\(", lines[i]):
      continue  # a file, section or test comment: no declaration directly under it
    if not DECL.match(lines[i]):
      continue  # a statement: the comment explains code, it names no declaration
    decl = declaration_after(lines, i)
    decl_ids = set(re.findall(IDENT, strip_comments_and_strings(decl)))
    if any(last in d for d in decl_ids):
      continue  # Foo, or a name made from it (CheckFoo, FooImpl)
    head = first.split(":")[0] if ":" in first else first
    named = [d for d in decl_ids if len(d) > 2 and re.search(r"\b%s\b" % re.escape(d), head)
             and d[0].isupper()]
    if named:
      continue
    findings.append("%s: misplaced: the comment opens with %s but sits above: %s"
                    % (where, token, decl.strip().split("\n")[0].strip()))


def check_calls(path, text, ids, findings):
  for n, line in enumerate(text.split("\n"), 1):
    pos = line.find("//")
    if pos < 0 or "check-docs: ok" in line:
      continue
    comment = line[pos:]
    for full, last in CALL.findall(comment):
      if last in PROSE or last.startswith(("C_", "TEST")) or last.isupper():
        continue
      if last not in ids:
        findings.append("%s:%d: gone: the comment calls %s(), which nothing in the tree declares"
                        % (path, n, full))
    for word in CAMEL.findall(re.sub(r'"[^"]*"', "", comment)):
      # A part of a name is enough here ("UnknownVersion" for the test
      # UnknownVersionIsRefused, "AfterFork" for ParentAfterFork).
      if word not in ids and word not in PROSE and word not in ID_TEXT:
        findings.append("%s:%d: gone: the comment names %s, which nothing in the tree declares"
                        % (path, n, word))


SEED = re.compile(r"\bseeds?\s+((?:0\d\d)(?:\s*(?:/|,|and|-)\s*0\d\d)*)", re.I)
ISSUE = re.compile(r"\bissues?\s+(\d+)\b", re.I)
MDREF = re.compile(r"(?<![\w/.])(?:docs/)?([A-Za-z0-9_]+\.md)\b(?![\[(])")  # [docs/]NAME.md


# A path into the tree: layer/file.h, src/core/hsm.h, tests/e2e/x.cc, ...
PATHREF = re.compile(r"(?<![\w/.*{$-])((?:[A-Za-z0-9_.-]+/)+[A-Za-z0-9_-]+\."
                     r"(?:h|hpp|cc|sh|py|txt|fbs|md|cmake|java))(?![\w/*{}-])")


def in_tree(root, p):
  """True when `p` starts with a folder of the tree (src/, tests/, core/,
  e2e/, ...), so it is ours to check and not another project's path."""
  first = p.split("/")[0]
  return any(os.path.isdir(os.path.join(root, d, first))
             for d in ("", "src", "include", "tests", "tests/e2e"))


def path_exists(root, path, p):
  """True when `p` names a file from the top, src/, include/, or the
  directory of `path` or one of its parents; a header CMake configures at
  build time (signet/version.hpp) exists as its template, `p`.in."""
  bases = [root, os.path.join(root, "src"), os.path.join(root, "include")]
  d = os.path.dirname(os.path.join(root, path))
  while d.startswith(root):
    bases.append(d)
    d = os.path.dirname(d)
  return any(os.path.exists(os.path.join(b, p)) or os.path.exists(os.path.join(b, p + ".in"))
             for b in bases)


QUALIFIED = re.compile(r"\b(?:[a-z_]+::)+(~?[A-Z]\w*)")  # proto::FrameReader in a doc


def check_refs(root, path, text, findings, seeds, issues, ids=frozenset()):
  code = path.endswith(CODE_EXT)
  for n, line in enumerate(text.split("\n"), 1):
    if "check-docs: ok" in line:
      continue
    where = "%s:%d" % (path, n)
    prose = line[line.find("//"):] if code and "//" in line else ("" if code else line)
    if not re.match(r"\s*#\s*include", line):
      for m in PATHREF.finditer(prose):
        generated = m.group(1).endswith("_generated.h")  # written by flatc at build time
        if not m.group(1).startswith(("../", "./")) and not generated and \
            in_tree(root, m.group(1)) and not path_exists(root, path, m.group(1)):
          findings.append("%s: outside: %s does not exist" % (where, m.group(1)))
    if path.endswith(".md"):
      for m in QUALIFIED.finditer(line):
        if m.group(1).lstrip("~") not in ids:
          findings.append("%s: gone: names %s, which nothing in the tree declares"
                          % (where, m.group(0)))
    if "../shared" in line or "shared/seeds" in line:
      findings.append("%s: outside: points outside the repository" % where)
    for m in SEED.finditer(line):
      for s in re.findall(r"0\d\d", m.group(1)):
        if s not in seeds:
          findings.append("%s: outside: seed %s is not in docs/SEEDS.md" % (where, s))
    for m in ISSUE.finditer(line):
      if m.group(1) not in issues:
        findings.append("%s: outside: issue %s is not in docs/ISSUES.md" % (where, m.group(1)))
    for m in MDREF.finditer(line):
      dirs = ("docs",) if m.group(0).startswith("docs/") else ("docs", ".")
      found = [os.path.join(root, d, m.group(1)) for d in dirs
               if os.path.exists(os.path.join(root, d, m.group(1)))]
      if not found:
        findings.append("%s: outside: %s is neither in docs/ nor at the top" % (where, m.group(1)))
        continue
      # A cited section, DESIGN.md "Heading" (a prefix of the heading will do).
      section = re.match(r'`?,?\s*(?:section\s+)?["\u201c]([^"\u201d]+)["\u201d]', line[m.end():])
      if section and not any(h.startswith(section.group(1)) for h in headings_of(found[0])):
        findings.append('%s: outside: %s has no section "%s"' % (where, m.group(1),
                                                                section.group(1)))


def headings_of(path):
  with open(path) as fh:
    return [h.strip() for h in re.findall(r"^#+\s+(.*)$", fh.read(), re.M)]


def headings(root, name, pattern):
  path = os.path.join(root, "docs", name)
  if not os.path.exists(path):
    return set()
  with open(path) as fh:
    return set(re.findall(pattern, fh.read(), re.M))


def main():
  parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
  parser.add_argument("--root", default=os.path.join(os.path.dirname(__file__), ".."))
  args = parser.parse_args()
  root = os.path.abspath(args.root)
  files = git_files(root)
  ids = known_identifiers(root, files)
  LEAD_KNOWN.update(i for i in ids if re.fullmatch(r"[A-Z][a-z0-9]+", i))
  global ID_TEXT
  ID_TEXT = " ".join(sorted(ids))
  seeds = headings(root, "SEEDS.md", r"^## Seed (\d{3})")
  issues = {n for h in headings(root, "ISSUES.md", r"^## Issues? (.*)$")
            for n in re.findall(r"\b(\d+)\b", h.split(":")[0])}
  findings = []
  for f in files:
    full = os.path.join(root, f)
    if f.endswith(CODE_EXT):
      with open(full, errors="replace") as fh:
        text = fh.read()
      check_code(f, text, ids, findings)
      check_calls(f, text, ids, findings)
      check_refs(root, f, text, findings, seeds, issues)
    elif (f.endswith((".md", ".sh", ".cmake", "CMakeLists.txt", "Makefile", ".py", ".fbs"))
          or f.startswith(".ci/")) and f not in ("docs/ISSUES.md", "scripts/check-docs.py") \
          and not f.startswith("tests/conformance/softhsm_"):
      with open(full, errors="replace") as fh:
        check_refs(root, f, fh.read(), findings, seeds, issues, ids)
  seen = set()
  for line in findings:  # one finding per place: the first check's
    place = line.split(": ")[0]
    if place not in seen:
      seen.add(place)
      print(line)
  findings = seen
  if findings:
    print("check-docs: %d finding(s); fix the comment, or mark a false one with "
          "'check-docs: ok' and why" % len(findings), file=sys.stderr)
    return 1
  return 0


if __name__ == "__main__":
  sys.exit(main())
