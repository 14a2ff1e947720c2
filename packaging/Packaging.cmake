# Install rules for what is neither a binary nor a GUI resource (ui/CMakeLists.txt installs the desktop
# entry, the SVG icon and the AppStream metainfo): PNG icons, man pages, docs, copyright, changelog.
# Then the Debian package: `cpack --preset release` (or `cpack -G DEB` in any build folder) writes
# trainio_<version>_<arch>.deb. docs/packaging.md describes the layout and how it was checked.
# Included from the top-level CMakeLists.txt after the binaries' targets exist.

set(TRAINIO_DOC_DIR share/doc/trainio)

set(TRAINIO_PACKAGING_OUT ${CMAKE_BINARY_DIR}/packaging)
file(MAKE_DIRECTORY ${TRAINIO_PACKAGING_OUT}/man)
install(FILES ${PROJECT_SOURCE_DIR}/packaging/copyright DESTINATION ${TRAINIO_DOC_DIR})
# README's links point into docs/, so the docs keep that relative place beside it.
install(FILES ${PROJECT_SOURCE_DIR}/README.md DESTINATION ${TRAINIO_DOC_DIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/docs/ DESTINATION ${TRAINIO_DOC_DIR}/docs
        FILES_MATCHING PATTERN "*.md" PATTERN "*.png" PATTERN "man" EXCLUDE)

# Menus and docks that cannot scale SVG look up fixed-size PNGs; render them from the one SVG.
find_program(TRAINIO_RSVG_CONVERT rsvg-convert)
# trainio-cli(1) comes from its --help/--version plus the sections in docs/man/trainio-cli.h2m, so the
# command list never drifts from the binary; trainio(1) is written by hand (docs/man/trainio.1) because
# the GUI's short usage block does not lay out under help2man. Debian wants gzip -9n (no timestamp).
find_program(TRAINIO_HELP2MAN help2man)
find_program(TRAINIO_GZIP gzip REQUIRED)

set(generated)
if(TARGET trainio AND TRAINIO_RSVG_CONVERT)
  foreach(size 48 64 128 256)
    set(png ${TRAINIO_PACKAGING_OUT}/icons/${size}x${size}/trainio.png)
    add_custom_command(OUTPUT ${png}
      COMMAND ${CMAKE_COMMAND} -E make_directory ${TRAINIO_PACKAGING_OUT}/icons/${size}x${size}
      COMMAND ${TRAINIO_RSVG_CONVERT} --width=${size} --height=${size} --output=${png}
              ${PROJECT_SOURCE_DIR}/resources/icons/trainio.svg
      DEPENDS ${PROJECT_SOURCE_DIR}/resources/icons/trainio.svg
      COMMENT "Rendering the ${size}x${size} icon" VERBATIM)
    install(FILES ${png} DESTINATION share/icons/hicolor/${size}x${size}/apps)
    list(APPEND generated ${png})
  endforeach()
elseif(TARGET trainio)
  message(WARNING "rsvg-convert (Debian package librsvg2-bin) not found: the package gets no PNG icons "
                  "and its test fails; bash packaging/setup-debian.sh --tests installs it")
endif()

set(man_out ${TRAINIO_PACKAGING_OUT}/man)
if(TRAINIO_HELP2MAN)
  set(include ${PROJECT_SOURCE_DIR}/docs/man/trainio-cli.h2m)
  # --locale: in the C locale help2man turns the usage's UTF-8 punctuation into '?'.
  add_custom_command(OUTPUT ${man_out}/trainio-cli.1.gz
    COMMAND ${TRAINIO_HELP2MAN} --no-info --locale=C.UTF-8 --section=1
            "--name=emulate deep-learning training I/O and measure it as DLIO does"
            --include=${include} --output=${man_out}/trainio-cli.1 $<TARGET_FILE:trainio-cli>
    COMMAND ${TRAINIO_GZIP} -9nf ${man_out}/trainio-cli.1
    DEPENDS trainio-cli ${include}
    COMMENT "Writing the trainio-cli(1) man page" VERBATIM)
  install(FILES ${man_out}/trainio-cli.1.gz DESTINATION share/man/man1)
  list(APPEND generated ${man_out}/trainio-cli.1.gz)
else()
  message(WARNING "help2man (Debian package help2man) not found: no trainio-cli(1) man page, the package "
                  "lacks it and its test fails; bash packaging/setup-debian.sh --tests installs it")
endif()
if(TARGET trainio)
  configure_file(${PROJECT_SOURCE_DIR}/docs/man/trainio.1 ${man_out}/trainio.1 @ONLY)
  add_custom_command(OUTPUT ${man_out}/trainio.1.gz
    COMMAND ${TRAINIO_GZIP} -9nc ${man_out}/trainio.1 > ${man_out}/trainio.1.gz
    DEPENDS ${man_out}/trainio.1
    COMMENT "Compressing the trainio(1) man page")
  install(FILES ${man_out}/trainio.1.gz DESTINATION share/man/man1)
  list(APPEND generated ${man_out}/trainio.1.gz)
endif()
# Debian wants a changelog.gz in every package's doc folder; the package test checks its newest
# entry names the project version.
add_custom_command(OUTPUT ${TRAINIO_PACKAGING_OUT}/changelog.gz
  COMMAND ${TRAINIO_GZIP} -9nc ${PROJECT_SOURCE_DIR}/packaging/changelog > ${TRAINIO_PACKAGING_OUT}/changelog.gz
  DEPENDS ${PROJECT_SOURCE_DIR}/packaging/changelog
  COMMENT "Compressing the package changelog")
install(FILES ${TRAINIO_PACKAGING_OUT}/changelog.gz DESTINATION ${TRAINIO_DOC_DIR})
list(APPEND generated ${TRAINIO_PACKAGING_OUT}/changelog.gz)
add_custom_target(trainio_package_files ALL DEPENDS ${generated})

set(CPACK_PACKAGE_NAME trainio)
set(CPACK_PACKAGE_VENDOR "TrainIO")
set(CPACK_PACKAGE_CONTACT "TrainIO maintainers <maintainers@users.noreply.a-seed-38c7a7c4.example>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "${PROJECT_DESCRIPTION} (DLIO / MLPerf Storage)")
# Debian's extended description: lines under 80 columns (CPack indents each line of the string).
string(CONCAT CPACK_PACKAGE_DESCRIPTION
    "TrainIO emulates a deep-learning training job's reads (files, formats, batches,\n"
    "reader threads, shuffling, accelerator compute time) and measures accelerator\n"
    "utilization and bandwidth with the metric definitions of the DLIO benchmark and\n"
    "MLPerf Storage. It ships the trainio desktop workbench (live plots, results\n"
    "library, PDF reports), the trainio-cli command line and the MLPerf Storage v1.0\n"
    "workload presets.")
set(CPACK_PACKAGE_INSTALL_DIRECTORY trainio)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
# The release build keeps debug info for profiling; the package does not need it.
set(CPACK_STRIP_FILES ON)
set(CPACK_GENERATOR DEB)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT) # trainio_<version>_<arch>.deb, as Debian names packages
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)  # Depends computed by dpkg-shlibdeps from the binaries' libraries
set(CPACK_DEBIAN_PACKAGE_SECTION science)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
include(CPack)

# The package test: builds the .deb with cpack into a temporary folder and checks it with dpkg-deb
# (tests/packaging/check_deb.sh). It packs what the build made, so it only means something for an
# optimised build; configure output says whether it is registered.
if(TRAINIO_BUILD_TESTS)
  if(CMAKE_BUILD_TYPE MATCHES "^(Release|RelWithDebInfo)$" AND TARGET trainio)
    add_test(NAME package_deb
      COMMAND bash ${PROJECT_SOURCE_DIR}/tests/packaging/check_deb.sh ${CMAKE_BINARY_DIR} ${PROJECT_VERSION} ${CMAKE_CPACK_COMMAND})
    set_tests_properties(package_deb PROPERTIES LABELS package TIMEOUT 120)
    message(STATUS "Package test package_deb: registered (label \"package\")")
  else()
    message(STATUS "Package test package_deb: not registered: it needs an optimised build with the GUI "
                   "(release or ci preset); this is a ${CMAKE_BUILD_TYPE} build")
  endif()
endif()
