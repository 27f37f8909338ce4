# The floor rule, checked before a library compiles (a custom command each library depends on):
# a source of floor F may include, of our headers, only those of F and of the floors F lists.
# A wrong-way include fails the build, naming the file, the line and what F may include.
#
#   cmake -DFLOOR=lifecycle -DMAY="base;oci;policy;linux" -DROOT=<source dir> -DSTAMP=<file>
#         -DFILES="<abs paths>" -P cmake/check_floors.cmake
#
# Which folder is which floor: floor_of() below, the one table (docs/architecture.md shows it).

function(floor_of path out)
  set(f "")
  if(path MATCHES "^base/")
    set(f base)
  elseif(path MATCHES "^oci/")
    set(f oci)
  elseif(path MATCHES "^spec-mapping/")
    set(f policy)
  elseif(path MATCHES "^tls/")
    set(f tls)
  elseif(path MATCHES "^runtime/linux/")
    set(f linux)
  elseif(path MATCHES "^(runtime/lifecycle|hooks)/")
    set(f lifecycle)
  elseif(path MATCHES "^edges/")
    set(f edges)
  elseif(path MATCHES "^kms/host/")
    set(f kms_host)
  elseif(path MATCHES "^kms/")
    set(f kms)
  elseif(path MATCHES "^(cmd|runtime/cli)/")
    set(f cmd)
  endif()
  set(${out} "${f}" PARENT_SCOPE)
endfunction()

# Upward includes still to be removed, each "file -> header" with who removes it.
set(KNOWN_UPWARD
  # the console's fd passing uses the sync protocol's send_fd
  "runtime/linux/terminal.cpp -> runtime/lifecycle/sync.hpp"
)

set(bad "")
foreach(file ${FILES})
  file(RELATIVE_PATH rel "${ROOT}" "${file}")
  file(STRINGS "${file}" lines REGEX "^[ \t]*#[ \t]*include[ \t]*\"")
  foreach(line ${lines})
    string(REGEX REPLACE "^[ \t]*#[ \t]*include[ \t]*\"([^\"]+)\".*" "\\1" inc "${line}")
    floor_of("${inc}" to)
    if(to STREQUAL "" OR to STREQUAL FLOOR)
      continue()
    endif()
    list(FIND MAY "${to}" ok)
    list(FIND KNOWN_UPWARD "${rel} -> ${inc}" known)
    if(ok EQUAL -1 AND known EQUAL -1)
      string(APPEND bad "\n  ${rel}: #include \"${inc}\" is floor ${to}; floor ${FLOOR} may include only: ${MAY}")
    endif()
  endforeach()
endforeach()
if(bad)
  message(FATAL_ERROR "wrong-way include (docs/architecture.md, the floors):${bad}")
endif()
get_filename_component(dir "${STAMP}" DIRECTORY)
file(MAKE_DIRECTORY "${dir}")
file(TOUCH "${STAMP}")
