/*
 * A stand-in for IBM MQ's client library (soname libmqm_r.so), for tests.
 *
 * Every MQI entry point forwards its arguments unchanged to a function that
 * Python registered with mqi_standin_register() (ctypes callbacks; ctypes
 * takes the GIL). The Python side (tests/mqi/standin.py) reads and writes the
 * caller's MQI structures in place, as a queue manager would.
 *
 * If an entry point is called before anything registered, the library imports
 * the Python module named by $MQI_STANDIN_MODULE (default tests.mqi.standin)
 * through the CPython API of the process it lives in (found with dlsym, so no
 * Python headers are needed); importing that module registers the callbacks.
 * A process that is not Python gets MQRC_ENVIRONMENT_ERROR (2012).
 */
#include <dlfcn.h>
#include <stdint.h>
#include <stdlib.h>
#include <pthread.h>

typedef int32_t MQLONG;
typedef void *PTR;

#define MQCC_FAILED 2
#define MQRC_ENVIRONMENT_ERROR 2012

enum { V_CONN, V_CONNX, V_DISC, V_OPEN, V_CLOSE, V_GET, V_PUT, V_PUT1, V_CMIT, V_BACK,
       V_BEGIN, V_INQ, V_SET, V_STAT, V_CRTMH, V_DLTMH, V_SETMP, V_INQMP, V_DLTMP, V_SUB,
       V_SUBRQ, V_CB, V_CTL, V_COUNT };

/* Every verb's callback takes up to 12 pointer-sized arguments. */
typedef void (*verb_fn)(PTR, PTR, PTR, PTR, PTR, PTR, PTR, PTR, PTR, PTR, PTR, PTR);
static verb_fn table[V_COUNT];
static pthread_mutex_t boot_lock = PTHREAD_MUTEX_INITIALIZER;

int mqi_standin_register(int verb, verb_fn fn) {
  if (verb < 0 || verb >= V_COUNT) return -1;
  table[verb] = fn;
  return 0;
}

int mqi_standin_verbs(void) { return V_COUNT; }

static void boot(void) {
  typedef int (*ensure_t)(void);
  typedef void (*release_t)(int);
  typedef void *(*import_t)(const char *);
  typedef void (*decref_t)(void *);
  typedef void (*print_t)(void);
  pthread_mutex_lock(&boot_lock);
  if (table[V_CONNX] == NULL) {
    ensure_t ensure = (ensure_t)dlsym(RTLD_DEFAULT, "PyGILState_Ensure");
    release_t release = (release_t)dlsym(RTLD_DEFAULT, "PyGILState_Release");
    import_t import = (import_t)dlsym(RTLD_DEFAULT, "PyImport_ImportModule");
    decref_t decref = (decref_t)dlsym(RTLD_DEFAULT, "Py_DecRef");
    print_t print = (print_t)dlsym(RTLD_DEFAULT, "PyErr_Print");
    if (ensure && release && import && decref && print) {
      const char *name = getenv("MQI_STANDIN_MODULE");
      int state = ensure();
      void *module = import(name && *name ? name : "tests.mqi.standin");
      if (module) decref(module); else print();
      release(state);
    }
  }
  pthread_mutex_unlock(&boot_lock);
}

static int ready(int verb, MQLONG *cc, MQLONG *rc) {
  if (table[verb] == NULL) boot();
  if (table[verb] == NULL) {
    *cc = MQCC_FAILED;
    *rc = MQRC_ENVIRONMENT_ERROR;
    return 0;
  }
  return 1;
}

#define CALL(v, cc, rc, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12) \
  do { if (ready(v, cc, rc)) table[v]((PTR)(a1), (PTR)(a2), (PTR)(a3), (PTR)(a4), \
       (PTR)(a5), (PTR)(a6), (PTR)(a7), (PTR)(a8), (PTR)(a9), (PTR)(a10), (PTR)(a11), \
       (PTR)(a12)); } while (0)
#define H(x) ((intptr_t)(x))

void MQCONN(char *name, MQLONG *hconn, MQLONG *cc, MQLONG *rc) {
  CALL(V_CONN, cc, rc, name, hconn, cc, rc, 0, 0, 0, 0, 0, 0, 0, 0); }
void MQCONNX(char *name, PTR cno, MQLONG *hconn, MQLONG *cc, MQLONG *rc) {
  CALL(V_CONNX, cc, rc, name, cno, hconn, cc, rc, 0, 0, 0, 0, 0, 0, 0); }
void MQDISC(MQLONG *hconn, MQLONG *cc, MQLONG *rc) {
  CALL(V_DISC, cc, rc, hconn, cc, rc, 0, 0, 0, 0, 0, 0, 0, 0, 0); }
void MQOPEN(MQLONG hconn, PTR od, MQLONG options, MQLONG *hobj, MQLONG *cc, MQLONG *rc) {
  CALL(V_OPEN, cc, rc, H(hconn), od, H(options), hobj, cc, rc, 0, 0, 0, 0, 0, 0); }
void MQCLOSE(MQLONG hconn, MQLONG *hobj, MQLONG options, MQLONG *cc, MQLONG *rc) {
  CALL(V_CLOSE, cc, rc, H(hconn), hobj, H(options), cc, rc, 0, 0, 0, 0, 0, 0, 0); }
void MQGET(MQLONG hconn, MQLONG hobj, PTR md, PTR gmo, MQLONG buflen, PTR buffer,
           MQLONG *datalen, MQLONG *cc, MQLONG *rc) {
  CALL(V_GET, cc, rc, H(hconn), H(hobj), md, gmo, H(buflen), buffer, datalen, cc, rc, 0, 0, 0); }
void MQPUT(MQLONG hconn, MQLONG hobj, PTR md, PTR pmo, MQLONG buflen, PTR buffer,
           MQLONG *cc, MQLONG *rc) {
  CALL(V_PUT, cc, rc, H(hconn), H(hobj), md, pmo, H(buflen), buffer, cc, rc, 0, 0, 0, 0); }
void MQPUT1(MQLONG hconn, PTR od, PTR md, PTR pmo, MQLONG buflen, PTR buffer,
            MQLONG *cc, MQLONG *rc) {
  CALL(V_PUT1, cc, rc, H(hconn), od, md, pmo, H(buflen), buffer, cc, rc, 0, 0, 0, 0); }
void MQCMIT(MQLONG hconn, MQLONG *cc, MQLONG *rc) {
  CALL(V_CMIT, cc, rc, H(hconn), cc, rc, 0, 0, 0, 0, 0, 0, 0, 0, 0); }
void MQBACK(MQLONG hconn, MQLONG *cc, MQLONG *rc) {
  CALL(V_BACK, cc, rc, H(hconn), cc, rc, 0, 0, 0, 0, 0, 0, 0, 0, 0); }
void MQBEGIN(MQLONG hconn, PTR bo, MQLONG *cc, MQLONG *rc) {
  CALL(V_BEGIN, cc, rc, H(hconn), bo, cc, rc, 0, 0, 0, 0, 0, 0, 0, 0); }
void MQINQ(MQLONG hconn, MQLONG hobj, MQLONG count, MQLONG *selectors, MQLONG intcount,
           MQLONG *ints, MQLONG charlen, char *chars, MQLONG *cc, MQLONG *rc) {
  CALL(V_INQ, cc, rc, H(hconn), H(hobj), H(count), selectors, H(intcount), ints, H(charlen),
       chars, cc, rc, 0, 0); }
void MQSET(MQLONG hconn, MQLONG hobj, MQLONG count, MQLONG *selectors, MQLONG intcount,
           MQLONG *ints, MQLONG charlen, char *chars, MQLONG *cc, MQLONG *rc) {
  CALL(V_SET, cc, rc, H(hconn), H(hobj), H(count), selectors, H(intcount), ints, H(charlen),
       chars, cc, rc, 0, 0); }
void MQSTAT(MQLONG hconn, MQLONG type, PTR sts, MQLONG *cc, MQLONG *rc) {
  CALL(V_STAT, cc, rc, H(hconn), H(type), sts, cc, rc, 0, 0, 0, 0, 0, 0, 0); }
void MQCRTMH(MQLONG hconn, PTR cmho, int64_t *hmsg, MQLONG *cc, MQLONG *rc) {
  CALL(V_CRTMH, cc, rc, H(hconn), cmho, hmsg, cc, rc, 0, 0, 0, 0, 0, 0, 0); }
void MQDLTMH(MQLONG hconn, int64_t *hmsg, PTR dmho, MQLONG *cc, MQLONG *rc) {
  CALL(V_DLTMH, cc, rc, H(hconn), hmsg, dmho, cc, rc, 0, 0, 0, 0, 0, 0, 0); }
void MQSETMP(MQLONG hconn, int64_t hmsg, PTR smpo, PTR name, PTR pd, MQLONG type,
             MQLONG len, PTR value, MQLONG *cc, MQLONG *rc) {
  CALL(V_SETMP, cc, rc, H(hconn), (intptr_t)hmsg, smpo, name, pd, H(type), H(len), value, cc,
       rc, 0, 0); }
void MQINQMP(MQLONG hconn, int64_t hmsg, PTR impo, PTR name, PTR pd, MQLONG *type,
             MQLONG len, PTR value, MQLONG *datalen, MQLONG *cc, MQLONG *rc) {
  CALL(V_INQMP, cc, rc, H(hconn), (intptr_t)hmsg, impo, name, pd, type, H(len), value, datalen,
       cc, rc, 0); }
void MQDLTMP(MQLONG hconn, int64_t hmsg, PTR dmpo, PTR name, MQLONG *cc, MQLONG *rc) {
  CALL(V_DLTMP, cc, rc, H(hconn), (intptr_t)hmsg, dmpo, name, cc, rc, 0, 0, 0, 0, 0, 0); }
void MQSUB(MQLONG hconn, PTR sd, MQLONG *hobj, MQLONG *hsub, MQLONG *cc, MQLONG *rc) {
  CALL(V_SUB, cc, rc, H(hconn), sd, hobj, hsub, cc, rc, 0, 0, 0, 0, 0, 0); }
void MQSUBRQ(MQLONG hconn, MQLONG hsub, MQLONG action, PTR sro, MQLONG *cc, MQLONG *rc) {
  CALL(V_SUBRQ, cc, rc, H(hconn), H(hsub), H(action), sro, cc, rc, 0, 0, 0, 0, 0, 0); }
void MQCB(MQLONG hconn, MQLONG op, PTR cbd, MQLONG hobj, PTR md, PTR gmo, MQLONG *cc,
          MQLONG *rc) {
  CALL(V_CB, cc, rc, H(hconn), H(op), cbd, H(hobj), md, gmo, cc, rc, 0, 0, 0, 0); }
void MQCTL(MQLONG hconn, MQLONG op, PTR ctlo, MQLONG *cc, MQLONG *rc) {
  CALL(V_CTL, cc, rc, H(hconn), H(op), ctlo, cc, rc, 0, 0, 0, 0, 0, 0, 0); }
