# Writes OUT: a C++ source defining obi::kCatalogueJson, a JSON array of every
# descriptor file in FILES (sorted by name).
string(REPLACE "|" ";" FILES "${FILES}")
list(SORT FILES)
set(body "")
set(sep "")
foreach(f ${FILES})
  file(READ ${f} content)
  string(APPEND body "${sep}${content}")
  set(sep ",\n")
endforeach()
file(WRITE ${OUT}.tmp "// Generated from blocks/catalogue/*.json: do not edit.\nnamespace obi { extern const char* const kCatalogueJson; const char* const kCatalogueJson = R\"OBICATALOGUE([\n${body}\n])OBICATALOGUE\"; }\n")
file(COPY_FILE ${OUT}.tmp ${OUT} ONLY_IF_DIFFERENT)
