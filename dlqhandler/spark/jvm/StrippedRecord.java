/*
 * A message without its dead-letter header, for RETRY and FWD HEADER(NO) targets.
 *
 * of(md, body, dlh) is the message the data source's writer (DumpRecordWriter, strip_dlh)
 * writes instead, as dlqhandler.mq.message.stripped_data builds it: the MQDLH removed and
 * the structure before it told what follows now. That structure is the MQMD (its Format,
 * Encoding and CodedCharSetId become the MQDLH's), or, for a dead letter with an MQRFH2
 * of properties in front of its MQDLH (DumpMessage.decodeDlh), that MQRFH2: kept byte
 * for byte but its Encoding, CodedCharSetId and Format, which become the MQDLH's, while
 * the MQMD stays as it was (Format MQHRF2): the properties travel on in the data.
 */
package dlqhandler.spark;

final class StrippedRecord {
    private StrippedRecord() {
    }

    /** The MQMD Format, Encoding and CodedCharSetId and the data of a stripped message. */
    static final class Parts {
        String format;
        int encoding;
        int ccsid;
        byte[] data;
    }

    /** The message without its MQDLH (see the class comment); dlh is decodeDlh's, without
     *  error. An MQDLH Format that cannot be written in the MQMD's CCSID is an error. */
    static Parts of(Object[] md, byte[] body, DumpMessage.Dlh dlh) throws java.io.IOException {
        Parts p = new Parts();
        String format = (String) dlh.values[5];
        int encoding = (Integer) dlh.values[3];
        int ccsid = (Integer) dlh.values[4];
        int front = dlh.inFront;
        if (front == 0) {
            p.format = format;
            p.encoding = encoding;
            p.ccsid = ccsid;
            p.data = java.util.Arrays.copyOfRange(body, DumpTables.DLH_LENGTH, body.length);
            return p;
        }
        p.format = (String) md[7];
        p.encoding = (Integer) md[5];
        p.ccsid = (Integer) md[6];
        int rest = front + DumpTables.DLH_LENGTH;
        byte[] data = new byte[body.length - DumpTables.DLH_LENGTH];
        System.arraycopy(body, 0, data, 0, front);
        System.arraycopy(body, rest, data, front, body.length - rest);
        boolean big = dlh.front.big;
        putLong(data, 12, encoding, big);
        putLong(data, 16, ccsid, big);
        byte[] text = mqchar(format, 8, p.ccsid == 0 ? 819 : p.ccsid);
        System.arraycopy(text, 0, data, 20, 8);
        p.data = data;
        return p;
    }

    private static void putLong(byte[] b, int at, int v, boolean big) {
        for (int i = 0; i < 4; i++) {
            b[at + i] = (byte) (v >>> (big ? 24 - 8 * i : 8 * i));
        }
    }

    /** dlqhandler.mq.ccsid.encode_text: text in a CCSID, blank padded to length. */
    private static byte[] mqchar(String text, int length, int ccsid) throws java.io.IOException {
        byte[] raw;
        int page = java.util.Arrays.binarySearch(DumpTables.SINGLE_BYTE_CCSIDS, ccsid);
        if (page >= 0) {
            String table = DumpTables.PAGES[page];
            raw = new byte[text.length()];
            for (int i = 0; i < raw.length; i++) {
                int b = table.indexOf(text.charAt(i));
                if (b < 0 || text.charAt(i) == '\uffff') {
                    throw new java.io.IOException("MQRFH2.Format: " + DumpMessage.pyRepr(text)
                        + " cannot be written in CCSID " + ccsid);
                }
                raw[i] = (byte) b;
            }
        } else {
            String charset = null;
            for (int i = 0; i < DumpTables.MULTI_BYTE_CCSIDS.length; i++) {
                if (DumpTables.MULTI_BYTE_CCSIDS[i] == ccsid) {
                    charset = DumpTables.MULTI_BYTE_CHARSETS[i];
                }
            }
            if (charset == null) {
                throw new java.io.IOException("unsupported CCSID " + ccsid);
            }
            raw = text.getBytes(java.nio.charset.Charset.forName(charset));
        }
        if (raw.length > length) {
            throw new java.io.IOException("MQRFH2.Format: " + DumpMessage.pyRepr(text)
                + " is longer than " + length + " bytes");
        }
        byte[] out = new byte[length];
        boolean ebcdic = java.util.Arrays.binarySearch(DumpTables.EBCDIC_CCSIDS, ccsid) >= 0;
        java.util.Arrays.fill(out, (byte) (ebcdic ? 0x40 : 0x20));
        System.arraycopy(raw, 0, out, 0, raw.length);
        return out;
    }
}
