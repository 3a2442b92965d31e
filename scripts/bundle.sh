# Sourced by the scripts that run from a bundle (gpu_round.sh, ab_proof.sh):
# make bundle and make bundle-ab compress the binaries (a fat binary is
# mostly SASS, ~15x smaller as xz); unpack_bundle DIR [--drop] unpacks every
# DIR/**/*.xz where it lies, executable (--drop: and removes the .xz), with
# Python's lzma where the node has no xz.
unpack_bundle() {
  local z
  for z in $(find "$1" -name '*.xz'); do
    xz -dc "$z" > "${z%.xz}" 2>/dev/null ||
      python3 -c 'import lzma,sys; open(sys.argv[2],"wb").write(lzma.open(sys.argv[1]).read())' "$z" "${z%.xz}"
    chmod +x "${z%.xz}"
    if [ "${2:-}" = --drop ]; then rm -f "$z"; fi
  done
}
