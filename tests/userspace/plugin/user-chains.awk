# Print each user stack of a report (trace-cmd report with the series, or
# with the libtraceevent plugin) as its function names, innermost first,
# comma-separated: " <user stack>" then " => name+0xoff (file) ..." lines.
#   awk -f user-chains.awk REPORT
/^ <user stack>/ { if (u) print s; u = 1; s = ""; next }
u && /^ => / { f = $2; sub(/\+.*/, "", f); s = s (s ? "," : "") f; next }
u { print s; u = 0 }
END { if (u) print s }
