#!/usr/bin/env bash
# readme_layout_matches.sh SOURCE_DIR: the `src/<layer>/` rows of README.md's
# layout table are exactly the folders of src/ (ls order aside) and come in
# the order the top-level CMakeLists.txt adds the layers (lowest first).
set -euo pipefail
cd "$1"
table=$(grep -oE '^\| `src/[a-z0-9_]+/`' README.md | sed -E 's/^\| `src\/([a-z0-9_]+)\/`/\1/')
folders=$(ls -d src/*/ | sed -E 's|src/([a-z0-9_]+)/|\1|')
layers=$(grep -E '^foreach\(layer ' CMakeLists.txt | sed -E 's/^foreach\(layer (.*)\)$/\1/' | tr ' ' '\n')
if [ "$(sort <<<"$table")" != "$(sort <<<"$folders")" ]; then
  echo "README.md's layout table lists: $(echo $table)"
  echo "but src/ holds:                 $(echo $folders)"
  exit 1
fi
if [ "$table" != "$layers" ]; then
  echo "README.md's layout table order: $(echo $table)"
  echo "CMakeLists.txt's layer order:   $(echo $layers)"
  exit 1
fi
echo "README layout table matches src/: $(echo $table)"
