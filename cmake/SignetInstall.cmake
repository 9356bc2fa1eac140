# SignetInstall.cmake: where `make install` (cmake --install) puts what is
# not a plain program, and the paths the installed pieces share (issue 14,
# "Install and run like a Debian service"). Included by the top-level
# CMakeLists.txt before the layers, so src/base can generate signet/paths.hpp
# and src/pkcs11 can install the module from these variables.
#
# SIGNET_DEFAULT_SOCKET: the installed service's Unix socket, written once
# here: signetd.service passes it to `signetd --socket`, its directory is the
# unit's RuntimeDirectory, and the PKCS#11 module uses it when nothing else
# names a daemon (signet/paths.hpp kDefaultSocketPath).
set(SIGNET_DEFAULT_SOCKET "/run/signet/signetd.sock")
# SIGNET_MODULE_CONF: the file the PKCS#11 module reads when SIGNET_CONF is
# unset (signet/paths.hpp kModuleConfigPath). A system path, like the socket:
# it does not move with the install prefix.
set(SIGNET_MODULE_CONF "/etc/signet/pkcs11.conf")
# SIGNET_STATE_DIR: the service's data directory (the unit's StateDirectory).
set(SIGNET_STATE_DIR "/var/lib/signet")

get_filename_component(_signet_run_dir "${SIGNET_DEFAULT_SOCKET}" DIRECTORY)
if(NOT _signet_run_dir MATCHES "^/run/[^/]+$")
  message(FATAL_ERROR "SIGNET_DEFAULT_SOCKET must lie in /run/<name>/ (the unit's RuntimeDirectory)")
endif()
string(REGEX REPLACE "^/run/" "" SIGNET_RUNTIME_DIRECTORY "${_signet_run_dir}")
get_filename_component(_signet_state_name "${SIGNET_STATE_DIR}" NAME)

# Where p11-kit looks on this system: p11-kit-1.pc's p11_module_path (the
# directory relative module names resolve against) and p11_module_configs
# (the package module-file directory). An older .pc without them: p11-kit's
# own defaults under the install prefix. Cache variables, so a packager or an
# unprivileged install can point them elsewhere (-DSIGNET_P11_MODULE_DIR=...).
pkg_get_variable(_signet_p11_module_path p11-kit-1 p11_module_path)
pkg_get_variable(_signet_p11_module_configs p11-kit-1 p11_module_configs)
if(NOT _signet_p11_module_path)
  set(_signet_p11_module_path "${CMAKE_INSTALL_LIBDIR}/pkcs11")
endif()
if(NOT _signet_p11_module_configs)
  set(_signet_p11_module_configs "${CMAKE_INSTALL_DATADIR}/p11-kit/modules")
endif()
set(SIGNET_P11_MODULE_DIR "${_signet_p11_module_path}" CACHE STRING
  "where the PKCS#11 module is installed (absolute, or relative to the prefix)")
set(SIGNET_P11_MODULE_CONFIG_DIR "${_signet_p11_module_configs}" CACHE STRING
  "where its p11-kit module file is installed (absolute, or relative to the prefix)")
# systemd reads units from <prefix>/lib/systemd/system for /usr and
# /usr/local alike, and sysusers.d files from /usr/lib/sysusers.d.
set(SIGNET_SYSTEMD_UNIT_DIR "lib/systemd/system" CACHE STRING
  "where signetd.service is installed (absolute, or relative to the prefix)")
set(SIGNET_SYSUSERS_DIR "lib/sysusers.d" CACHE STRING
  "where the signet user's sysusers.d file is installed (absolute, or relative to the prefix)")

# signet_install_files(): register the install-time step that writes the
# p11-kit module file, the sample module config, the unit and the sysusers.d
# file (cmake/SignetInstallFiles.cmake). It runs at install time because the
# prefix is an install-time choice (`cmake --install --prefix`, the
# Makefile's PREFIX) and these files name installed paths.
function(signet_install_files)
  install(CODE "
    set(SIGNET_SOURCE_DIR \"${CMAKE_SOURCE_DIR}\")
    set(SIGNET_STAGING_BASE \"${CMAKE_BINARY_DIR}\")
    set(SIGNET_DEFAULT_SOCKET \"${SIGNET_DEFAULT_SOCKET}\")
    set(SIGNET_MODULE_CONF \"${SIGNET_MODULE_CONF}\")
    set(SIGNET_STATE_DIR \"${SIGNET_STATE_DIR}\")
    set(SIGNET_STATE_DIRECTORY \"${_signet_state_name}\")
    set(SIGNET_RUNTIME_DIRECTORY \"${SIGNET_RUNTIME_DIRECTORY}\")
    set(SIGNET_BINDIR \"${CMAKE_INSTALL_BINDIR}\")
    set(SIGNET_SYSCONFDIR \"${CMAKE_INSTALL_SYSCONFDIR}\")
    set(SIGNET_P11_MODULE_DIR \"${SIGNET_P11_MODULE_DIR}\")
    set(SIGNET_P11_MODULE_CONFIG_DIR \"${SIGNET_P11_MODULE_CONFIG_DIR}\")
    set(SIGNET_SYSTEMD_UNIT_DIR \"${SIGNET_SYSTEMD_UNIT_DIR}\")
    set(SIGNET_SYSUSERS_DIR \"${SIGNET_SYSUSERS_DIR}\")
    set(SIGNET_MODULE_FILE_NAME \"$<TARGET_FILE_NAME:signet_pkcs11>\")
  ")
  install(SCRIPT ${CMAKE_SOURCE_DIR}/cmake/SignetInstallFiles.cmake)
endfunction()
