/*
 * The messages of one split of a dmpmqmsg file: those whose first line (A or N) begins
 * at a byte offset in [start, end). A message that begins in the split is read to its
 * end, however far past the split it goes, and one that begins before it is left to the
 * split before: at any split size every message is read once and whole.
 *
 * Where a message begins: at an A or N line whose last line before it that is not a '*'
 * comment is empty or not an A or N line (an empty line ends a message, as in the
 * Python reader: a message without data lines is its own, malformed, message). A split
 * that starts inside a file finds that line by looking back from its start (usually one
 * line). A record is the
 * bytes from a message's first line to the next message's first line (or the end of
 * the file), so the file header followed by every record is the file, byte for byte.
 *
 * A line that cannot follow a message's data lines (not A, N, X, S, T, '*' or empty)
 * ends that message and starts a record of its own, "junk", up to the next message: as
 * the Python reader yields the message and then names that line (in the message's
 * number), the source gives the message's row and a malformed row for the junk.
 *
 * Line and message numbers are counted as the split is read; the count before the
 * split (a scan of the bytes before it, no decoding) is made only when a selected
 * column or a malformed message needs it.
 */
package dlqhandler.spark;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

final class DumpSplitReader implements AutoCloseable {
    private static final int BUFFER = 1 << 16;
    private static final byte[][] HEADER_PREFIXES = {
        "* DMPMQMSG".getBytes(StandardCharsets.US_ASCII),
        "* QLOAD".getBytes(StandardCharsets.US_ASCII)};

    final String name;
    final long start;          // where the split begins in the file
    private final Path path;
    private final Configuration conf;
    private final FSDataInputStream in;
    private final long end;
    final long maxRecord;

    // the input buffer
    private final byte[] buf = new byte[BUFFER];
    private int bufPos;
    private int bufLen;
    private long bufOffset;  // file offset of buf[0]

    // the record being built: its lines are appended here
    private DumpMessage.ByteSink record = new DumpMessage.ByteSink(1 << 12);
    private boolean pending;   // a message's first line is at record[0, pendingLen)
    private int pendingLen;
    private long pendingOffset;
    private boolean pendingJunk;  // the pending record is junk, not a message
    private int prevKind;      // first byte of the last significant line; 0 = none
    private boolean eof;
    boolean keepBytes = true;  // false: no selected column needs a record's bytes
    private static final byte[] NOT_KEPT = new byte[0];

    // line and message numbers of the split's first message, when known
    private long baseLine = -1;
    private long baseMessage = -1;
    private long firstOffset = -1;
    private long linesRead;    // lines from the split's first message to the current record
    private long messagesRead;

    /** One message record. */
    static final class Raw {
        long offset;
        long lineInSplit;      // lines before it since the split's first message
        long numberInSplit;    // 0-based among the split's messages
        byte[] bytes;          // null when too long
        boolean cut;           // the file ends inside it
        boolean newlineAtEnd;  // the file's last byte is a line end (LF, or a CR there)
        int lastLine;          // 0-based index of its last non-empty line
        long length;
        boolean junk;          // not a message: lines after a message's data lines
    }

    /** A line of kind c after one of kind prev starts a record: a message's first line
     *  (A or N after anything else), or junk after data lines. */
    private static boolean starts(byte c, int prev) {
        if (c == 'A' || c == 'N') {
            return prev != 'A' && prev != 'N';
        }
        return c != 'X' && c != 'S' && c != 'T'
            && (prev == 'X' || prev == 'S' || prev == 'T' || prev == AFTER_DATA);
    }

    /** The kind an empty line leaves: it ends a message (so an A or N line after it
     *  starts one), and after data lines a line that is not a message is still junk. */
    private static int afterEmpty(int prev) {
        return prev == 'X' || prev == 'S' || prev == 'T' || prev == AFTER_DATA ? AFTER_DATA : 0;
    }

    /** The kind of an empty line after a message's data lines. */
    private static final int AFTER_DATA = 'E';

    DumpSplitReader(Configuration conf, Path path, String name, long start, long end,
                    long maxRecord) throws IOException {
        this.conf = conf;
        this.path = path;
        this.name = name;
        this.start = start;
        this.end = end;
        this.maxRecord = maxRecord;
        FileSystem fs = path.getFileSystem(conf);
        this.in = fs.open(path);
        if (start == 0) {
            readHeader();
        } else {
            in.seek(start - 1);
            bufOffset = start - 1;
            skipRestOfLine();  // the first line that begins at or after start
            prevKind = kindBefore(bufOffset + bufPos);
            findFirst();
        }
    }

    /** The file header: blank and comment lines, the first one a dmpmqmsg header. */
    private void readHeader() throws IOException {
        long lines = 0;
        boolean seen = false;
        while (true) {
            long at = bufOffset + bufPos;
            int s = readLine();
            if (s < 0) {
                if (!seen) {
                    throw new IOException(name + ":1: empty file: expected a '* DMPMQMSG' or "
                        + "'* QLOAD' header line");
                }
                eof = true;
                baseLine = lines + 1;
                baseMessage = 0;
                return;
            }
            int n = content(s);
            lines++;
            if (n == 0) {
                record.size = 0;
                continue;
            }
            byte c = record.buf[s];
            if (!seen) {
                seen = true;
                if (hasCr(s, n)) {
                    throw new IOException(name + ":" + lines + ": " + CR_ONLY);
                }
                if (!startsWithHeader(s, n)) {
                    String found = DumpMessage.show(record.buf, s, n, 24);
                    boolean bcg = n >= 8 && new String(record.buf, s, 8,
                        StandardCharsets.ISO_8859_1).equals("AMQSBCG0");
                    throw new IOException(name + ":" + lines + ": " + (bcg
                        ? "amqsbcg browse output is not supported; unload the queue with "
                          + "'dmpmqmsg -i QUEUE -f FILE' instead"
                        : "not a dmpmqmsg file: expected a '* DMPMQMSG' or '* QLOAD' header "
                          + "line, found " + found + " (files written with -dH have no header)"));
                }
                record.size = 0;
                continue;
            }
            if (c == '*') {
                if (hasCr(s, n)) {
                    throw new IOException(name + ":" + lines + ": " + CR_ONLY);
                }
                record.size = 0;
                continue;
            }
            if (c != 'A' && c != 'N') {
                throw new IOException(name + ":" + lines + ": expected a message ('A' or 'N' "
                    + "line), found " + DumpMessage.show(record.buf, s, n, 24));
            }
            // the first message
            baseLine = lines;
            baseMessage = 0;
            firstOffset = at;
            startPending(s, at, c);
            return;
        }
    }

    /** A CR inside the header line or a '*' line (dmpmqmsg writes none there): the
     *  file's lines end with a CR alone (or the line holds a stray CR). A line ends at
     *  LF, so CR-only lines are one line, which would read as a header or a comment and
     *  no messages. The Python reader's words (dump_reader.py). */
    static final String CR_ONLY = "this line holds a CR that is not a line end: the lines "
        + "of this file end with a CR alone (CR-only line ends), or the line holds a stray "
        + "CR; dmpmqmsg lines end with LF or CR LF, so CR-only lines read as one. Convert "
        + "the line ends (for example: tr '\\r' '\\n' < FILE > FILE.lf) and read the "
        + "converted file";

    private boolean hasCr(int s, int n) {
        for (int i = s; i < s + n; i++) {
            if (record.buf[i] == '\r') {
                return true;
            }
        }
        return false;
    }

    private boolean startsWithHeader(int s, int n) {
        for (byte[] prefix : HEADER_PREFIXES) {
            if (n >= prefix.length && Arrays.equals(record.buf, s, s + prefix.length,
                                                    prefix, 0, prefix.length)) {
                return true;
            }
        }
        return false;
    }

    /** From the current position, the first message start (at or after it). */
    private void findFirst() throws IOException {
        while (true) {
            long at = bufOffset + bufPos;
            int s = readLine();
            if (s < 0) {
                eof = true;
                return;
            }
            int n = content(s);
            if (n == 0 || record.buf[s] == '*') {
                if (n == 0) {
                    prevKind = afterEmpty(prevKind);  // an empty line ends a message
                }
                record.size = 0;
                continue;
            }
            byte c = record.buf[s];
            if (starts(c, prevKind)) {
                firstOffset = at;
                startPending(s, at, c);
                return;
            }
            prevKind = c;
            record.size = 0;
        }
    }

    /** The record's bytes, record[0, size): null when too long, none when no selected
     *  column needs them. */
    private byte[] taken(int size, boolean tooLong) {
        return tooLong ? null : keepBytes ? Arrays.copyOf(record.buf, size) : NOT_KEPT;
    }

    /** The record buffer's line at s (its end the buffer's) is the next record's first
     *  line, at file offset at: it moves to the buffer's start and waits for next(). */
    private void startPending(int s, long at, byte c) {
        if (s > 0) {
            System.arraycopy(record.buf, s, record.buf, 0, record.size - s);
            record.size -= s;
        }
        pending = true;
        pendingLen = record.size;
        pendingOffset = at;
        pendingJunk = c != 'A' && c != 'N';
        prevKind = c;
    }

    /** The next message of the split, or null. */
    Raw next() throws IOException {
        if (!pending || pendingOffset >= end) {
            return null;
        }
        Raw raw = new Raw();
        raw.offset = pendingOffset;
        raw.lineInSplit = linesRead;
        raw.junk = pendingJunk;
        raw.numberInSplit = raw.junk ? messagesRead - 1 : messagesRead;  // the message before
        pending = false;
        int lines = 1;
        int lastLine = 0;
        long newlines = pendingLen > 0 && record.buf[pendingLen - 1] == '\n' ? 1 : 0;
        boolean tooLong = false;
        long length = pendingLen;
        int lastStart = 0;
        boolean ended = false;  // the next record's first line was found
        while (true) {
            // The lines wholly inside the input buffer are looked at there and copied
            // into the record together, one copy per buffer rather than one per line.
            int seg = bufPos;
            while (true) {
                int ls = bufPos;
                int nl = DumpMessage.find(buf, ls, bufLen, (byte) '\n');
                if (nl < 0) {
                    break;  // the line goes on past the buffer: read it below
                }
                int n = (nl > ls && buf[nl - 1] == '\r' ? nl - 1 : nl) - ls;
                if (n > 0 && buf[ls] != '*') {
                    byte c = buf[ls];
                    if (starts(c, prevKind)) {
                        record.write(buf, seg, ls - seg);
                        raw.bytes = taken(record.size, tooLong);
                        record.size = 0;
                        record.write(buf, ls, nl + 1 - ls);
                        bufPos = nl + 1;
                        startPending(0, bufOffset + ls, c);
                        ended = true;
                        break;
                    }
                    prevKind = c;
                    lastLine = lines;
                    lastStart = record.size + (ls - seg);
                } else if (n == 0) {
                    prevKind = afterEmpty(prevKind);  // ends a message
                }
                lines++;
                length += nl + 1 - ls;
                newlines++;
                bufPos = nl + 1;
                if (length > maxRecord) {
                    tooLong = true;
                    record.size = 0;  // keep reading to its end, without its bytes
                    seg = bufPos;
                    lastStart = -1;
                }
            }
            if (ended) {
                break;
            }
            record.write(buf, seg, bufPos - seg);
            // a line across the buffer's end, or the end of the file
            long at = bufOffset + bufPos;
            int s = readLine();
            if (s < 0) {
                eof = true;
                break;
            }
            int n = content(s);
            long lineLength = record.size - s;
            if (n > 0 && record.buf[s] != '*') {
                byte c = record.buf[s];
                if (starts(c, prevKind)) {
                    // the next record: its first line stays in the buffer
                    raw.bytes = taken(s, tooLong);
                    startPending(s, at, c);
                    break;
                }
                prevKind = c;
                lastLine = lines;
                lastStart = s;
            } else if (n == 0) {
                prevKind = afterEmpty(prevKind);  // ends a message (as the Python reader reads)
            }
            lines++;
            length += lineLength;
            if (record.buf[record.size - 1] == '\n') {
                newlines++;
            }
            if (length > maxRecord) {
                tooLong = true;
                record.size = 0;  // keep reading to its end, without its bytes
                lastStart = -1;
            }
        }
        if (eof) {
            raw.bytes = taken(record.size, tooLong);
            // a CR at the end of the file is its last line's line end, as an LF is
            raw.newlineAtEnd = record.size > 0
                && (record.buf[record.size - 1] == '\n' || record.buf[record.size - 1] == '\r');
            // cut off: the file's last line is a data line (no empty line after it)
            if (!tooLong && record.size > 0 && lastStart >= 0) {
                int lastLineEnd = record.size;
                int s = record.size - 1;
                while (s >= 0 && record.buf[s] != '\n') {
                    s--;
                }
                if (s == record.size - 1) {  // ends with a line end: the line before it
                    lastLineEnd = s;
                    s--;
                    while (s >= 0 && record.buf[s] != '\n') {
                        s--;
                    }
                }
                int ls = s + 1;
                int n = lastLineEnd - ls;
                if (n > 0 && record.buf[lastLineEnd - 1] == '\r') {
                    n--;
                }
                byte c = n > 0 ? record.buf[ls] : 0;
                raw.cut = !raw.junk && (c == 'X' || c == 'S' || c == 'T');
            }
            record.size = 0;
        }
        raw.lastLine = lastLine;
        raw.length = length;
        linesRead += newlines;
        if (!raw.junk) {
            messagesRead++;
        }
        return raw;
    }

    /** Line and message number (1-based) of a message of this split. */
    long[] located(Raw raw) throws IOException {
        if (baseLine < 0) {
            countBefore();
        }
        return new long[] {baseLine + raw.lineInSplit, baseMessage + raw.numberInSplit + 1};
    }

    /** Lines and message starts before the split's first message (a scan, no decode). */
    private void countBefore() throws IOException {
        long lines = 1;
        long messages = 0;
        int kind = 0;
        try (InputStream scan = path.getFileSystem(conf).open(path)) {
            byte[] b = new byte[BUFFER];
            long offset = 0;
            boolean lineStart = true;
            boolean empty;
            long stop = firstOffset;
            while (offset < stop) {
                int n = scan.read(b, 0, (int) Math.min(b.length, stop - offset));
                if (n < 0) {
                    break;
                }
                for (int i = 0; i < n; i++) {
                    byte c = b[i];
                    if (lineStart) {
                        empty = c == '\n' || c == '\r';
                        lineStart = false;
                        if (empty) {
                            kind = 0;
                        } else if (c != '*') {
                            if ((c == 'A' || c == 'N') && kind != 'A' && kind != 'N') {
                                messages++;
                            }
                            kind = c;
                        }
                    }
                    if (c == '\n') {
                        lines++;
                        lineStart = true;
                    }
                }
                offset += n;
            }
        }
        baseLine = lines;
        baseMessage = messages;
    }

    // --- lines ---------------------------------------------------------------------

    /** Append the next line (with its line end) to record; its start there, or -1. */
    private int readLine() throws IOException {
        int s = record.size;
        while (true) {
            if (bufPos == bufLen && !fill()) {
                return record.size > s ? s : -1;
            }
            int i = DumpMessage.find(buf, bufPos, bufLen, (byte) '\n');
            boolean found = i >= 0;
            if (!found) {
                i = bufLen;
            }
            int take = (found ? i + 1 : i) - bufPos;
            record.write(buf, bufPos, take);
            bufPos += take;
            if (found) {
                return s;
            }
        }
    }

    /** The line at record[s, size) without its line end: its length. */
    private int content(int s) {
        int e = record.size;
        if (e > s && record.buf[e - 1] == '\n') {
            e--;
        }
        if (e > s && record.buf[e - 1] == '\r') {
            e--;
        }
        return e - s;
    }

    private void skipRestOfLine() throws IOException {
        while (true) {
            if (bufPos == bufLen && !fill()) {
                return;
            }
            while (bufPos < bufLen) {
                if (buf[bufPos++] == '\n') {
                    return;
                }
            }
        }
    }

    private boolean fill() throws IOException {
        bufOffset += bufLen;
        bufPos = 0;
        bufLen = 0;
        int n = in.read(buf, 0, buf.length);
        if (n <= 0) {
            return false;
        }
        bufLen = n;
        return true;
    }

    /** First byte of the last significant line ending before ``pos``; 0 = none. */
    private int kindBefore(long pos) throws IOException {
        long window = 4096;
        boolean empties = false;
        try (FSDataInputStream back = path.getFileSystem(conf).open(path)) {
            while (true) {
                long from = Math.max(0, pos - window);
                byte[] b = new byte[(int) (pos - from)];
                back.readFully(from, b);
                int lineEnd = b.length;  // exclusive end of the line being looked at
                int i = b.length - 1;
                while (i >= -1) {
                    if (i == -1 || b[i] == '\n') {
                        if (i == -1 && from > 0) {
                            break;  // the line begins before the window
                        }
                        int ls = i + 1;
                        int e = lineEnd;
                        if (e > ls && b[e - 1] == '\n') {
                            e--;
                        }
                        if (e > ls && b[e - 1] == '\r') {
                            e--;
                        }
                        if (e > ls && b[ls] != '*') {
                            return empties ? afterEmpty(b[ls]) : b[ls];
                        }
                        if (e == ls && lineEnd > ls) {
                            empties = true;  // an empty line: what it follows decides
                        }
                        lineEnd = ls;
                    }
                    i--;
                }
                if (from == 0) {
                    return 0;
                }
                window *= 4;
            }
        }
    }

    @Override
    public void close() throws IOException {
        in.close();
    }
}
