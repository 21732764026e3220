# chainlog.awk: a log of one chain of short rows, no compaction, so that
# the context window holds every row: user and assistant in turn.
#   awk -v n=300000 -f scripts/chainlog.awk > LOG     (300,000 rows: ~64 MB)
function u(i) { return sprintf("%08x-0000-4000-8000-%012d", i, i) }
BEGIN {
	sid = "5e55f500-0000-4000-8000-000000000999"
	for (i = 1; i <= n; i++) {
		p = i == 1 ? "null" : "\"" u(i - 1) "\""
		ts = sprintf("2026-01-01T%02d:%02d:%02d.%03dZ", int(i / 3600000) % 24,
			     int(i / 60000) % 60, int(i / 1000) % 60, i % 1000)
		if (i % 2)
			printf "{\"parentUuid\":%s,\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":\"prompt %d\"},\"uuid\":\"%s\",\"timestamp\":\"%s\",\"sessionId\":\"%s\"}\n", p, i, u(i), ts, sid
		else
			printf "{\"parentUuid\":%s,\"type\":\"assistant\",\"message\":{\"id\":\"m%d\",\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":\"answer %d\"}]},\"uuid\":\"%s\",\"timestamp\":\"%s\",\"sessionId\":\"%s\"}\n", p, i, i, u(i), ts, sid
	}
}
