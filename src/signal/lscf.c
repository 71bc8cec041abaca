/* Least-squares complex-frequency identification (LSCF, common denominator, z-domain) of the
 * poles of several FRFs, with a stabilisation diagram and automatic selection of the stable
 * poles (docs/theory.md, "LSCF" and "Stabilisation diagram"). Shapes come from kd_lsfd.
 *
 * Model of channel o: H_o(w) = N_o(z) / D(z), z = exp(i w Ts), Ts = 1 / (2 f_hi), real
 * coefficients of degree n. The linearised equation errors N_o(z_f) - H_o(f) D(z_f) are
 * minimised; the numerator coefficients are eliminated by projecting onto the orthogonal
 * complement of the numerator basis (one QR of the basis at the highest order: the bases of
 * lower orders are its leading columns, so every order reuses it), which leaves the reduced
 * normal matrix M_n = sum_o (T_o - P_o^T P_o) of the denominator alone. */
#include <complex.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cblas.h>
#include <lapacke.h>

#include "kedyn/signal.h"

#define KD_PI 3.14159265358979323846

typedef struct pole_set {
    int n;
    double* f;           /* [cap] Hz */
    double* zeta;        /* [cap] */
    int* chain;          /* [cap] successive orders stable in everything, this one included */
    double complex* res; /* [cap x nchan] residues of the FRFs as given */
} pole_set;

static int pole_set_init(pole_set* s, int cap, int nchan)
{
    s->n = 0;
    s->f = malloc(sizeof(double) * (size_t)cap);
    s->zeta = malloc(sizeof(double) * (size_t)cap);
    s->chain = malloc(sizeof(int) * (size_t)cap);
    s->res = malloc(sizeof(double complex) * (size_t)cap * (size_t)nchan);
    return s->f && s->zeta && s->chain && s->res;
}

static void pole_set_free(pole_set* s)
{
    free(s->f);
    free(s->zeta);
    free(s->chain);
    free(s->res);
}

/* MAC of two complex vectors (the residues of one pole at two orders). */
static double mac_c(const double complex* a, const double complex* b, int n)
{
    double complex c = 0.0;
    double aa = 0.0, bb = 0.0;
    for (int k = 0; k < n; k++) {
        c += conj(a[k]) * b[k];
        aa += creal(a[k] * conj(a[k]));
        bb += creal(b[k] * conj(b[k]));
    }
    return (aa > 0.0 && bb > 0.0) ? creal(c * conj(c)) / (aa * bb) : 0.0;
}

static kd_status add_diagram_pole(kd_modal_fit* out, int* cap, int** chains, int order, double f,
                                  double zeta, int flags, int chain)
{
    if (out->npoles == *cap) {
        int nc = *cap ? 2 * *cap : 256;
        kd_stab_pole* p = realloc(out->poles, sizeof *p * (size_t)nc);
        if (!p)
            return KD_ERR_NOMEM;
        out->poles = p;
        int* c = realloc(*chains, sizeof *c * (size_t)nc);
        if (!c)
            return KD_ERR_NOMEM;
        *chains = c;
        *cap = nc;
    }
    out->poles[out->npoles] = (kd_stab_pole){order, f, zeta, flags};
    (*chains)[out->npoles] = chain;
    out->npoles++;
    return KD_OK;
}

static int by_f(const void* a, const void* b)
{
    const double* x = a;
    const double* y = b;
    return (x[0] > y[0]) - (x[0] < y[0]);
}

kd_status kd_lscf(const double* f, const double* frf, int nf, int nchan, const kd_lscf_opts* opt,
                  kd_modal_fit* out, kd_error* err)
{
    memset(out, 0, sizeof *out);
    if (!opt || nf < 4 || nchan < 1)
        return kd_error_set(err, KD_ERR_USAGE, "", KD_LOC_NONE, "LSCF needs FRFs of at least 4 lines");
    kd_lscf_opts o = *opt;
    if (o.order_min <= 0)
        o.order_min = 2;
    if (o.tol_freq <= 0.0)
        o.tol_freq = 0.01;
    if (o.tol_damp <= 0.0)
        o.tol_damp = 0.05;
    if (o.tol_mac <= 0.0)
        o.tol_mac = 0.02;
    if (o.zeta_max <= 0.0)
        o.zeta_max = 0.2;
    if (o.min_stable <= 0)
        o.min_stable = 5;
    if (o.order_max < o.order_min || o.order_max > 200)
        return kd_error_set(err, KD_ERR_USAGE, "", KD_LOC_NONE,
                            "LSCF orders must satisfy 2 <= order_min <= order_max <= 200 (got %d, %d)", o.order_min,
                            o.order_max);
    /* the band's lines */
    int lo = 0, hi = nf - 1;
    while (lo < nf && f[lo] < o.fmin)
        lo++;
    if (o.fmax > 0.0)
        while (hi >= 0 && f[hi] > o.fmax)
            hi--;
    int nl = hi - lo + 1, N = o.order_max, nc = N + 1;
    if (nl < nc + 1 || !(f[hi] > 0.0))
        return kd_error_set(err, KD_ERR_USAGE, "", KD_LOC_NONE,
                            "the band [%g, %g] Hz holds %d lines, fewer than order_max + 2 = %d", o.fmin, o.fmax,
                            nl < 0 ? 0 : nl, N + 2);
    double ts = 1.0 / (2.0 * f[hi]);
    double fband_lo = f[lo], fband_hi = f[hi];
    int rows = 2 * nl;

    double* Q = malloc(sizeof(double) * (size_t)rows * (size_t)nc);     /* basis, then its Q */
    double* tau = malloc(sizeof(double) * (size_t)nc);
    double* Rt = malloc(sizeof(double) * (size_t)nc * (size_t)nc);      /* triangular factor */
    double* Y = malloc(sizeof(double) * (size_t)rows * (size_t)nc);
    double* P = malloc(sizeof(double) * (size_t)nchan * (size_t)nc * (size_t)nc);
    double* wch = malloc(sizeof(double) * (size_t)nchan);
    double* Tsum = calloc((size_t)nc * (size_t)nc, sizeof(double));
    double* G = calloc((size_t)nc * (size_t)nc, sizeof(double));
    double* M = malloc(sizeof(double) * (size_t)nc * (size_t)nc);
    double* A = malloc(sizeof(double) * (size_t)nc * (size_t)nc);
    double* alpha = malloc(sizeof(double) * (size_t)nc);
    double* beta = malloc(sizeof(double) * (size_t)nc);
    double* C = malloc(sizeof(double) * (size_t)N * (size_t)N);
    double* wr = malloc(sizeof(double) * (size_t)N);
    double* wi = malloc(sizeof(double) * (size_t)N);
    lapack_int* ipiv = malloc(sizeof(lapack_int) * (size_t)nc);
    double complex* zr = malloc(sizeof(double complex) * (size_t)N);
    int* chains = NULL;
    int cap = 0;
    pole_set prev, cur;
    int ok_sets = pole_set_init(&prev, N, nchan) & pole_set_init(&cur, N, nchan);
    kd_status st = (Q && tau && Rt && Y && P && wch && Tsum && G && M && A && alpha && beta && C && wr && wi && ipiv &&
                    zr && ok_sets)
                       ? KD_OK
                       : KD_ERR_NOMEM;
    if (st != KD_OK)
        goto done;

    /* numerator basis X[f, k] = z_f^k stacked as [Re; Im] (column-major rows x nc), and its QR */
    for (int l = 0; l < nl; l++) {
        double th = 2.0 * KD_PI * f[lo + l] * ts;
        for (int k = 0; k < nc; k++) {
            Q[(size_t)k * rows + l] = cos(th * k);
            Q[(size_t)k * rows + nl + l] = sin(th * k);
        }
    }
    if (LAPACKE_dgeqrf(LAPACK_COL_MAJOR, rows, nc, Q, rows, tau) != 0) {
        st = kd_error_set(err, KD_ERR_NUMERIC, "", KD_LOC_NONE, "LSCF: QR of the numerator basis failed");
        goto done;
    }
    for (int j = 0; j < nc; j++)
        for (int i = 0; i < nc; i++)
            Rt[(size_t)j * nc + i] = i <= j ? Q[(size_t)j * rows + i] : 0.0;
    if (LAPACKE_dorgqr(LAPACK_COL_MAJOR, rows, nc, nc, Q, rows, tau) != 0) {
        st = kd_error_set(err, KD_ERR_NUMERIC, "", KD_LOC_NONE, "LSCF: QR of the numerator basis failed");
        goto done;
    }
    /* per channel: Y[f, k] = -w_o H_o(f) z_f^k; sum of T_o = Y^T Y, P_o = Q^T Y (theory.md, LSCF). w_o
     * = 1 / rms |H_o| balances the channels. */
    for (int c = 0; c < nchan; c++) {
        const double* h = frf + 2 * (size_t)c * nf;
        double s = 0.0;
        for (int l = 0; l < nl; l++)
            s += h[2 * (lo + l)] * h[2 * (lo + l)] + h[2 * (lo + l) + 1] * h[2 * (lo + l) + 1];
        wch[c] = s > 0.0 ? sqrt(nl / s) : 1.0;
        for (int l = 0; l < nl; l++) {
            double th = 2.0 * KD_PI * f[lo + l] * ts;
            double complex v = -wch[c] * (h[2 * (lo + l)] + I * h[2 * (lo + l) + 1]), z = cexp(I * th);
            for (int k = 0; k < nc; k++) { /* v = -w_o H z^k by recurrence (error ~ k eps) */
                Y[(size_t)k * rows + l] = creal(v);
                Y[(size_t)k * rows + nl + l] = cimag(v);
                v *= z;
            }
        }
        cblas_dgemm(CblasColMajor, CblasTrans, CblasNoTrans, nc, nc, rows, 1.0, Y, rows, Y, rows, 1.0, Tsum, nc);
        cblas_dgemm(CblasColMajor, CblasTrans, CblasNoTrans, nc, nc, rows, 1.0, Q, rows, Y, rows, 0.0,
                    P + (size_t)c * nc * nc, nc);
    }

    prev.n = 0;
    int grow = 0; /* rows of P accumulated in G */
    for (int n = o.order_min; n <= N; n++) {
        int m1 = n + 1;
        /* M_n = sum_o T_o,n - P_o,n^T P_o,n (leading blocks): G accumulates the rows k <= n of
         * every P_o, so each order adds one row instead of recomputing the products */
        for (; grow <= n; grow++)
            for (int c = 0; c < nchan; c++) {
                const double* Pc = P + (size_t)c * nc * nc;
                for (int j = 0; j < nc; j++) {
                    double pj = Pc[(size_t)j * nc + grow];
                    for (int i = 0; i <= j; i++)
                        G[(size_t)j * nc + i] += Pc[(size_t)i * nc + grow] * pj;
                }
            }
        for (int j = 0; j < m1; j++)
            for (int i = 0; i <= j; i++)
                M[(size_t)j * m1 + i] = M[(size_t)i * m1 + j] = Tsum[(size_t)j * nc + i] - G[(size_t)j * nc + i];
        /* alpha_n = 1: M[0:n, 0:n] alpha = -M[0:n, n] */
        for (int j = 0; j < n; j++)
            for (int i = 0; i < n; i++)
                A[(size_t)j * n + i] = M[(size_t)j * m1 + i];
        for (int i = 0; i < n; i++)
            alpha[i] = -M[(size_t)n * m1 + i];
        alpha[n] = 1.0;
        cur.n = 0;
        if (LAPACKE_dgesv(LAPACK_COL_MAJOR, n, 1, A, n, ipiv, alpha, n) != 0)
            goto next_order; /* singular at this order: no poles */
        /* roots of D(z) = sum alpha_k z^k: eigenvalues of the companion matrix */
        memset(C, 0, sizeof(double) * (size_t)n * (size_t)n);
        for (int i = 0; i < n; i++)
            C[(size_t)i * n] = -alpha[n - 1 - i];
        for (int i = 1; i < n; i++)
            C[(size_t)(i - 1) * n + i] = 1.0;
        if (LAPACKE_dgeev(LAPACK_COL_MAJOR, 'N', 'N', n, C, n, wr, wi, NULL, 1, NULL, 1) != 0)
            goto next_order;
        for (int r = 0; r < n; r++) {
            if (!(wi[r] > 0.0))
                continue;
            double complex z = wr[r] + I * wi[r];
            double complex lam = clog(z) / ts; /* z = exp(lambda Ts) */
            double wn = cabs(lam), zeta = -creal(lam) / wn, fr = wn / (2.0 * KD_PI);
            if (!(zeta > 0.0 && zeta <= o.zeta_max) || fr < fband_lo || fr > fband_hi)
                continue;
            cur.f[cur.n] = fr;
            cur.zeta[cur.n] = zeta;
            zr[cur.n] = z;
            cur.n++;
        }
        /* residues of each channel: beta_o = -R^{-1} P_o alpha; A_or = N_o(z_r) / (D'(z_r) z_r Ts) */
        for (int c = 0; c < nchan && cur.n > 0; c++) {
            const double* Pc = P + (size_t)c * nc * nc;
            for (int i = 0; i < m1; i++) {
                double s = 0.0;
                for (int k = 0; k < m1; k++)
                    s += Pc[(size_t)k * nc + i] * alpha[k];
                beta[i] = -s;
            }
            cblas_dtrsv(CblasColMajor, CblasUpper, CblasNoTrans, CblasNonUnit, m1, Rt, nc, beta, 1);
            for (int r = 0; r < cur.n; r++) {
                double complex z = zr[r], num = 0.0, den = 0.0, zk = 1.0;
                for (int k = 0; k <= n; k++) {
                    num += beta[k] * zk;
                    if (k < n)
                        den += (k + 1) * alpha[k + 1] * zk;
                    zk *= z;
                }
                cur.res[(size_t)r * nchan + c] = num / (den * z * ts) / wch[c];
            }
        }
        /* stability against the previous order (theory.md, "Stabilisation diagram") */
        for (int r = 0; r < cur.n; r++) {
            int best = -1;
            double bd = 0.0;
            for (int q = 0; q < prev.n; q++) {
                double d = fabs(cur.f[r] - prev.f[q]);
                if (best < 0 || d < bd) {
                    best = q;
                    bd = d;
                }
            }
            int flags = 0;
            if (best >= 0 && bd <= o.tol_freq * cur.f[r]) {
                flags |= KD_STAB_FREQ;
                if (fabs(cur.zeta[r] - prev.zeta[best]) <= o.tol_damp * cur.zeta[r]) {
                    flags |= KD_STAB_DAMP;
                    if (1.0 - mac_c(cur.res + (size_t)r * nchan, prev.res + (size_t)best * nchan, nchan) <= o.tol_mac)
                        flags |= KD_STAB_SHAPE;
                }
            }
            int all = KD_STAB_FREQ | KD_STAB_DAMP | KD_STAB_SHAPE;
            cur.chain[r] = flags == all ? prev.chain[best] + 1 : 0;
            st = add_diagram_pole(out, &cap, &chains, n, cur.f[r], cur.zeta[r], flags, cur.chain[r]);
            if (st != KD_OK)
                goto done;
        }
    next_order:;
        pole_set t = prev;
        prev = cur;
        cur = t;
    }

    /* selection (theory.md, "Stabilisation diagram"): the poles stable in frequency, damping
     * and shape, sorted by frequency, form clusters where successive ones are within tol_freq;
     * a cluster holding poles of at least min_stable orders, and at least a quarter of the
     * orders of the most populated cluster, is a mode, at the median frequency and
     * damping of its poles */
    {
        int nst = 0, nsel = 0;
        double* fz = malloc(sizeof(double) * 3 * (size_t)(out->npoles + 1)); /* (f, zeta, order) */
        double* sel = malloc(sizeof(double) * 2 * (size_t)(out->npoles + 1));  /* (f, zeta) */
        double* tmp = malloc(sizeof(double) * (size_t)(out->npoles + 1));
        char* seen = calloc((size_t)N + 1, 1);
        if (!fz || !sel || !tmp || !seen) {
            free(fz);
            free(sel);
            free(tmp);
            free(seen);
            st = KD_ERR_NOMEM;
            goto done;
        }
        for (int i = 0; i < out->npoles; i++)
            if (chains[i] >= 1) {
                fz[3 * nst] = out->poles[i].f_hz;
                fz[3 * nst + 1] = out->poles[i].zeta;
                fz[3 * nst + 2] = out->poles[i].order;
                nst++;
            }
        qsort(fz, (size_t)nst, 3 * sizeof(double), by_f);
        /* two passes over the clusters: the largest count of orders, then the selection */
        int maxorders = 0;
        for (int pass = 0; pass < 2; pass++)
            for (int i0 = 0; i0 < nst;) {
                int i1 = i0 + 1;
                while (i1 < nst && fz[3 * i1] - fz[3 * (i1 - 1)] <= o.tol_freq * fz[3 * i1])
                    i1++;
                int norders = 0;
                memset(seen, 0, (size_t)N + 1);
                for (int i = i0; i < i1; i++)
                    if (!seen[(int)fz[3 * i + 2]]++)
                        norders++;
                if (pass == 0 && norders > maxorders)
                    maxorders = norders;
                if (pass == 1 && norders >= o.min_stable && 4 * norders >= maxorders) {
                    for (int q = 0; q < 2; q++) {
                        for (int i = i0; i < i1; i++)
                            tmp[i - i0] = fz[3 * i + q];
                        qsort(tmp, (size_t)(i1 - i0), sizeof(double), by_f);
                        int h = (i1 - i0) / 2;
                        sel[2 * nsel + q] = (i1 - i0) % 2 ? tmp[h] : 0.5 * (tmp[h - 1] + tmp[h]);
                    }
                    nsel++;
                }
                i0 = i1;
            }
        free(fz);
        free(tmp);
        free(seen);
        qsort(sel, (size_t)nsel, 2 * sizeof(double), by_f);
        out->nchan = nchan;
        out->nmodes = nsel;
        if (nsel > 0) {
            out->f_hz = malloc(sizeof(double) * (size_t)nsel);
            out->zeta = malloc(sizeof(double) * (size_t)nsel);
            out->shape = malloc(sizeof(double) * 2 * (size_t)nsel * (size_t)nchan);
            if (!out->f_hz || !out->zeta || !out->shape)
                st = KD_ERR_NOMEM;
            for (int s = 0; st == KD_OK && s < nsel; s++) {
                out->f_hz[s] = sel[2 * s];
                out->zeta[s] = sel[2 * s + 1];
            }
            if (st == KD_OK)
                st = kd_lsfd(f, frf, nf, nchan, o.fmin, o.fmax, o.quantity, out->f_hz, out->zeta, nsel, out->shape,
                             err);
        }
        free(sel);
    }

done:
    free(Q);
    free(tau);
    free(Rt);
    free(Y);
    free(P);
    free(wch);
    free(Tsum);
    free(G);
    free(M);
    free(A);
    free(alpha);
    free(beta);
    free(C);
    free(wr);
    free(wi);
    free(ipiv);
    free(zr);
    free(chains);
    pole_set_free(&prev);
    pole_set_free(&cur);
    if (st != KD_OK)
        kd_modal_fit_free(out);
    return st;
}

void kd_modal_fit_free(kd_modal_fit* m)
{
    if (!m)
        return;
    free(m->f_hz);
    free(m->zeta);
    free(m->shape);
    free(m->poles);
    memset(m, 0, sizeof *m);
}
