# The layer rule, built in: a target sees only its own headers and those of
# the targets it links.
#
# Code includes a header as "<layer>/<file>.h" (or "signet/<file>.hpp" for the
# public ones in include/signet/). No target is given src/ or include/ as a
# whole: each library owns an include root of its own in the build tree,
# build/include-roots/<target>/, holding one symbolic link named after its
# layer (-> src/<layer>) and links to the public headers it owns. The root is
# a PUBLIC include directory of that target, so it reaches exactly the
# targets that link it (directly or through a PUBLIC link), and an include
# of a layer the target does not link is "No such file" at compile time.
# tests/layering/ holds the test that it stays so.

set(SIGNET_INCLUDE_ROOTS ${CMAKE_BINARY_DIR}/include-roots)

# signet_own_headers(TARGET [LAYER name [FILES file.h...]] [PUBLIC_HEADERS file.hpp...])
# Gives TARGET its include root: LAYER's folder src/<name>/ as "<name>/...",
# and each include/signet/<file> named in PUBLIC_HEADERS as "signet/<file>".
# With FILES, only those headers of the folder: for a small library of a
# layer that targets above it link without seeing the rest of the layer.
function(signet_own_headers target)
  cmake_parse_arguments(ARG "" "LAYER" "FILES;PUBLIC_HEADERS" ${ARGN})
  set(root ${SIGNET_INCLUDE_ROOTS}/${target})
  file(MAKE_DIRECTORY ${root}/signet)
  if(ARG_LAYER AND ARG_FILES)
    file(MAKE_DIRECTORY ${root}/${ARG_LAYER})
    foreach(header IN LISTS ARG_FILES)
      file(CREATE_LINK ${CMAKE_SOURCE_DIR}/src/${ARG_LAYER}/${header} ${root}/${ARG_LAYER}/${header}
           SYMBOLIC)
    endforeach()
  elseif(ARG_LAYER)
    file(CREATE_LINK ${CMAKE_SOURCE_DIR}/src/${ARG_LAYER} ${root}/${ARG_LAYER} SYMBOLIC)
  endif()
  foreach(header IN LISTS ARG_PUBLIC_HEADERS)
    file(CREATE_LINK ${CMAKE_SOURCE_DIR}/include/signet/${header} ${root}/signet/${header} SYMBOLIC)
  endforeach()
  get_target_property(type ${target} TYPE)
  if(type STREQUAL "INTERFACE_LIBRARY")
    target_include_directories(${target} INTERFACE ${root})
  else()
    target_include_directories(${target} PUBLIC ${root})
  endif()
endfunction()
