# SignetInstallFiles.cmake: the install-time step registered by
# signet_install_files() (cmake/SignetInstall.cmake), which sets the
# SIGNET_* variables it reads. It writes, from templates in src/, the files
# that name installed paths, resolved against the install-time prefix:
#   - the p11-kit module file (the module's absolute path), in
#     SIGNET_P11_MODULE_CONFIG_DIR;
#   - the commented sample module config, as <sysconfdir>/signet/pkcs11.conf
#     (kept when one exists: it may be the administrator's);
#   - signetd.service, in SIGNET_SYSTEMD_UNIT_DIR;
#   - the signet user's sysusers.d file, in SIGNET_SYSUSERS_DIR.
# file(INSTALL) puts each under $DESTDIR, like every other install rule.

# signet_resolve(out dir): dir when absolute, else under the prefix.
function(signet_resolve out dir)
  if(IS_ABSOLUTE "${dir}")
    set(${out} "${dir}" PARENT_SCOPE)
  else()
    set(${out} "${CMAKE_INSTALL_PREFIX}/${dir}" PARENT_SCOPE)
  endif()
endfunction()

# sysconfdir as GNUInstallDirs resolves it, but for the install-time prefix:
# /usr and / keep their configuration in /etc (Debian's layout), any other
# prefix in <prefix>/etc.
if(IS_ABSOLUTE "${SIGNET_SYSCONFDIR}")
  set(_etc "${SIGNET_SYSCONFDIR}")
elseif(CMAKE_INSTALL_PREFIX STREQUAL "/usr" OR CMAKE_INSTALL_PREFIX STREQUAL "/")
  set(_etc "/etc")
else()
  set(_etc "${CMAKE_INSTALL_PREFIX}/${SIGNET_SYSCONFDIR}")
endif()

signet_resolve(_module_dir "${SIGNET_P11_MODULE_DIR}")
signet_resolve(_module_config_dir "${SIGNET_P11_MODULE_CONFIG_DIR}")
signet_resolve(_unit_dir "${SIGNET_SYSTEMD_UNIT_DIR}")
signet_resolve(_sysusers_dir "${SIGNET_SYSUSERS_DIR}")
signet_resolve(_bindir "${SIGNET_BINDIR}")

# The templates' @VARIABLES@.
set(SIGNET_MODULE_LIBRARY "${_module_dir}/${SIGNET_MODULE_FILE_NAME}")
set(SIGNETD_PROGRAM "${_bindir}/signetd")

# A directory of this run's own: two installs at once (tests into two
# DESTDIRs) must not write each other's files.
string(RANDOM LENGTH 16 _run)
set(SIGNET_STAGING_DIR "${SIGNET_STAGING_BASE}/install-files-${_run}")
file(MAKE_DIRECTORY "${SIGNET_STAGING_DIR}")
configure_file("${SIGNET_SOURCE_DIR}/src/pkcs11/signet.module.in"
  "${SIGNET_STAGING_DIR}/signet.module" @ONLY)
configure_file("${SIGNET_SOURCE_DIR}/src/pkcs11/pkcs11.conf.in"
  "${SIGNET_STAGING_DIR}/pkcs11.conf" @ONLY)
configure_file("${SIGNET_SOURCE_DIR}/src/daemon/signetd.service.in"
  "${SIGNET_STAGING_DIR}/signetd.service" @ONLY)
configure_file("${SIGNET_SOURCE_DIR}/src/daemon/signet.sysusers.in"
  "${SIGNET_STAGING_DIR}/signet.conf" @ONLY)

file(INSTALL DESTINATION "${_module_config_dir}" TYPE FILE
  FILES "${SIGNET_STAGING_DIR}/signet.module")
file(INSTALL DESTINATION "${_unit_dir}" TYPE FILE
  FILES "${SIGNET_STAGING_DIR}/signetd.service")
file(INSTALL DESTINATION "${_sysusers_dir}" TYPE FILE
  FILES "${SIGNET_STAGING_DIR}/signet.conf")
if(EXISTS "$ENV{DESTDIR}${_etc}/signet/pkcs11.conf")
  message(STATUS "Keeping: $ENV{DESTDIR}${_etc}/signet/pkcs11.conf (the sample was not copied)")
else()
  file(INSTALL DESTINATION "${_etc}/signet" TYPE FILE
    FILES "${SIGNET_STAGING_DIR}/pkcs11.conf")
endif()
file(REMOVE_RECURSE "${SIGNET_STAGING_DIR}")
