/* FreeRDP's bulk codecs timed on a latlab packet file: the C half of
 * scripts/freerdp-codec-bench.sh (see docs/codec.md). Written for FreeRDP 2 (Debian's
 * freerdp2-dev); only the public codec headers are used.
 *
 *   freerdp-codec-bench CORPUS.pkt PASSES [ALGO=LATLAB_STREAM.pkt ...]
 *
 * For each of mppc8, mppc64, ncrush and xcrush: compress every packet of CORPUS (one context
 * per pass, the best pass kept), decompress FreeRDP's own stream (best pass), and check the
 * round trip. For each ALGO=FILE given, FreeRDP also decompresses latlab's stream of that
 * algorithm (written by `latlab codec compress`) and compares it with CORPUS.
 * Output: tab-separated lines
 *   own ALGO compress_MB/s decompress_MB/s bytes_in bytes_out mismatches
 *   latlab-stream ALGO decompress_MB/s mismatches
 */
#include <freerdp/codec/mppc.h>
#include <freerdp/codec/ncrush.h>
#include <freerdp/codec/xcrush.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct {
	unsigned char flags;
	UINT32 len;
	BYTE* data;
} Packet;

typedef struct {
	Packet* p;
	size_t n;
} Packets;

static void die(const char* what)
{
	fprintf(stderr, "freerdp-codec-bench: %s\n", what);
	exit(2);
}

static Packets read_packets(const char* path)
{
	FILE* f = fopen(path, "rb");
	if (!f)
	{
		fprintf(stderr, "freerdp-codec-bench: cannot open '%s'\n", path);
		exit(2);
	}
	Packets ps = { NULL, 0 };
	size_t cap = 0;
	for (;;)
	{
		unsigned char h[5];
		size_t got = fread(h, 1, 5, f);
		if (got == 0)
			break;
		if (got != 5)
			die("truncated record header");
		UINT32 len = h[1] | (UINT32)h[2] << 8 | (UINT32)h[3] << 16 | (UINT32)h[4] << 24;
		if (len > (1u << 20))
			die("record longer than 1 MiB");
		if (ps.n == cap)
		{
			cap = cap ? cap * 2 : 1024;
			ps.p = realloc(ps.p, cap * sizeof(Packet));
			if (!ps.p)
				die("out of memory");
		}
		Packet* p = &ps.p[ps.n++];
		p->flags = h[0];
		p->len = len;
		p->data = malloc(len ? len : 1);
		if (!p->data || fread(p->data, 1, len, f) != len)
			die("truncated record");
	}
	fclose(f);
	return ps;
}

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

enum Algo { MPPC8, MPPC64, NCRUSH, XCRUSH };
static const char* NAMES[] = { "mppc8", "mppc64", "ncrush", "xcrush" };

typedef struct {
	enum Algo a;
	void* ctx;
} Ctx;

static Ctx ctx_new(enum Algo a, BOOL compressor)
{
	Ctx c = { a, NULL };
	switch (a)
	{
		case MPPC8:
			c.ctx = mppc_context_new(0, compressor);
			break;
		case MPPC64:
			c.ctx = mppc_context_new(1, compressor);
			break;
		case NCRUSH:
			c.ctx = ncrush_context_new(compressor);
			break;
		case XCRUSH:
			c.ctx = xcrush_context_new(compressor);
			break;
	}
	if (!c.ctx)
		die("cannot create a FreeRDP codec context");
	return c;
}

static void ctx_free(Ctx c)
{
	switch (c.a)
	{
		case MPPC8:
		case MPPC64:
			mppc_context_free(c.ctx);
			break;
		case NCRUSH:
			ncrush_context_free(c.ctx);
			break;
		case XCRUSH:
			xcrush_context_free(c.ctx);
			break;
	}
}

static int compress(Ctx c, BYTE* src, UINT32 n, BYTE** dst, UINT32* dn, UINT32* flags)
{
	switch (c.a)
	{
		case MPPC8:
		case MPPC64:
			return mppc_compress(c.ctx, src, n, dst, dn, flags);
		case NCRUSH:
			return ncrush_compress(c.ctx, src, n, dst, dn, flags);
		default:
			return xcrush_compress(c.ctx, src, n, dst, dn, flags);
	}
}

static int decompress(Ctx c, BYTE* src, UINT32 n, BYTE** dst, UINT32* dn, UINT32 flags)
{
	switch (c.a)
	{
		case MPPC8:
		case MPPC64:
			return mppc_decompress(c.ctx, src, n, dst, dn, flags);
		case NCRUSH:
			return ncrush_decompress(c.ctx, src, n, dst, dn, flags);
		default:
			return xcrush_decompress(c.ctx, src, n, dst, dn, flags);
	}
}

/* The flag bits a decompressor acts on; a packet without any is plain data. */
#define FLAG_BITS (PACKET_COMPRESSED | PACKET_AT_FRONT | PACKET_FLUSHED)

/* Decompress `wire` once comparing each packet with `orig` (untimed; the mismatches are
 * counted), then `passes` times untouched; returns the best pass's seconds. */
static double time_decompress(enum Algo a, const Packets* wire, const Packets* orig, int passes,
                              size_t* mismatches)
{
	double best = 1e30;
	*mismatches = 0;
	for (int pass = -1; pass < passes; pass++)
	{
		Ctx c = ctx_new(a, FALSE);
		double t0 = now();
		for (size_t i = 0; i < wire->n; i++)
		{
			const Packet* w = &wire->p[i];
			BYTE* out = w->data;
			UINT32 outn = w->len;
			int st = 0;
			if (w->flags & FLAG_BITS)
				st = decompress(c, w->data, w->len, &out, &outn, w->flags);
			if (pass < 0 && (st < 0 || outn != orig->p[i].len || memcmp(out, orig->p[i].data, outn) != 0))
				(*mismatches)++;
		}
		double t = now() - t0;
		ctx_free(c);
		if (pass >= 0 && t < best)
			best = t;
	}
	return best;
}

static void own(enum Algo a, const Packets* corpus, int passes)
{
	Packets wire = { calloc(corpus->n ? corpus->n : 1, sizeof(Packet)), corpus->n };
	if (!wire.p)
		die("out of memory");
	BYTE* arena = malloc(corpus->n * 65536 + 1);
	if (!arena)
		die("out of memory");
	size_t bytes_in = 0, bytes_out = 0;
	double best = 1e30;
	for (int pass = 0; pass < passes; pass++)
	{
		Ctx c = ctx_new(a, TRUE);
		BYTE* at = arena;
		bytes_in = bytes_out = 0;
		double t0 = now();
		for (size_t i = 0; i < corpus->n; i++)
		{
			BYTE out[65536];
			BYTE* dst = out;
			UINT32 dn = sizeof(out);
			UINT32 flags = 0;
			Packet* src = &corpus->p[i];
			int st = compress(c, src->data, src->len, &dst, &dn, &flags);
			Packet* w = &wire.p[i];
			if (st < 0 || !(flags & PACKET_COMPRESSED))
			{
				/* Sent as is (flags may still say PACKET_FLUSHED). */
				dst = src->data;
				dn = src->len;
				if (st < 0)
					flags = 0;
			}
			w->flags = (unsigned char)(flags | (flags & FLAG_BITS ? a : 0));
			w->len = dn;
			w->data = at;
			memcpy(at, dst, dn);
			at += dn;
			bytes_in += src->len;
			bytes_out += dn;
		}
		double t = now() - t0;
		ctx_free(c);
		if (t < best)
			best = t;
	}
	size_t bad = 0;
	double d = time_decompress(a, &wire, corpus, passes, &bad);
	printf("own\t%s\t%.1f\t%.1f\t%zu\t%zu\t%zu\n", NAMES[a], bytes_in / 1e6 / best, bytes_in / 1e6 / d,
	       bytes_in, bytes_out, bad);
	free(arena);
	free(wire.p);
}

int main(int argc, char** argv)
{
	if (argc < 3)
	{
		fprintf(stderr, "usage: %s CORPUS.pkt PASSES [ALGO=LATLAB_STREAM.pkt ...]\n", argv[0]);
		return 2;
	}
	Packets corpus = read_packets(argv[1]);
	int passes = atoi(argv[2]);
	if (passes < 1)
		passes = 1;
	size_t bytes = 0;
	for (size_t i = 0; i < corpus.n; i++)
		bytes += corpus.p[i].len;
	for (int a = MPPC8; a <= XCRUSH; a++)
		own((enum Algo)a, &corpus, passes);
	for (int k = 3; k < argc; k++)
	{
		char* eq = strchr(argv[k], '=');
		if (!eq)
			die("expected ALGO=FILE");
		*eq = 0;
		int a = -1;
		for (int j = 0; j < 4; j++)
			if (strcmp(argv[k], NAMES[j]) == 0)
				a = j;
		if (a < 0)
			die("unknown algorithm (mppc8, mppc64, ncrush, xcrush)");
		Packets wire = read_packets(eq + 1);
		if (wire.n != corpus.n)
			die("latlab's stream has another packet count than the corpus");
		size_t bad = 0;
		double d = time_decompress((enum Algo)a, &wire, &corpus, passes, &bad);
		printf("latlab-stream\t%s\t%.1f\t%zu\n", NAMES[a], bytes / 1e6 / d, bad);
	}
	return 0;
}
