// Gen writes the arithmetic test vectors of types/arith_test.go: for
// random and edge-case operands it computes l op r with the semantics of
// Cassandra 4's OperationFcts and NumberType/DecimalType (Java int, long,
// float, double, BigInteger and BigDecimal arithmetic), and prints the
// serialized result (hex) or the Java exception message.
//
// Run from this directory: java Gen.java > vectors.txt
import java.math.*;
import java.nio.ByteBuffer;
import java.util.*;

public class Gen {
    static final String[] TYPES = {"tinyint", "smallint", "int", "bigint", "counter", "float", "double", "varint", "decimal"};
    static final char[] OPS = {'+', '-', '*', '/', '%'};

    static int size(String t) {
        switch (t) {
            case "tinyint": return 1;
            case "smallint": return 2;
            case "int": case "float": return 4;
            case "bigint": case "counter": case "double": return 8;
            default: return Integer.MAX_VALUE;
        }
    }
    static boolean fp(String t) { return t.equals("float") || t.equals("double") || t.equals("decimal"); }
    static String ret(String l, String r) {
        int s = Math.max(size(l), size(r));
        if (fp(l) || fp(r)) return s == 4 ? "float" : s == 8 ? "double" : "decimal";
        switch (s) { case 1: return "tinyint"; case 2: return "smallint"; case 4: return "int"; case 8: return "bigint"; default: return "varint"; }
    }

    static long toLong(String t, String v) {
        switch (t) {
            case "tinyint": return Byte.parseByte(v);
            case "smallint": return Short.parseShort(v);
            case "int": return Integer.parseInt(v);
            default: return Long.parseLong(v);
        }
    }
    static double toDouble(String t, String v) {
        switch (t) {
            case "float": return (double) Float.parseFloat(v);
            case "double": return Double.parseDouble(v);
            default: return (double) toLong(t, v);
        }
    }
    static float toFloat(String t, String v) {
        if (t.equals("float")) return Float.parseFloat(v);
        return (float) toLong(t, v);
    }
    static BigInteger toBigInteger(String t, String v) {
        if (t.equals("varint")) return new BigInteger(v);
        return BigInteger.valueOf(toLong(t, v));
    }
    static BigDecimal toBigDecimal(String t, String v) {
        if (t.equals("decimal")) return new BigDecimal(v);
        if (t.equals("varint")) return new BigDecimal(new BigInteger(v));
        double d = toDouble(t, v);
        if (Double.isNaN(d)) throw new NumberFormatException("A NaN cannot be converted into a decimal");
        if (Double.isInfinite(d)) throw new NumberFormatException("An infinite number cannot be converted into a decimal");
        return BigDecimal.valueOf(d);
    }

    static final MathContext MAX_PRECISION = new MathContext(10000);
    static BigDecimal decimalDivide(BigDecimal l, BigDecimal r) {
        int quotientFirstDigitPos = (l.precision() - l.scale()) - (r.precision() - r.scale());
        int scale = 32 - quotientFirstDigitPos;
        scale = Math.max(scale, l.scale());
        scale = Math.max(scale, r.scale());
        scale = Math.max(scale, 32);
        scale = Math.min(scale, 1000);
        return l.divide(r, scale, RoundingMode.HALF_UP).stripTrailingZeros();
    }

    static byte[] compute(char op, String lt, String lv, String rt, String rv) {
        String rtype = ret(lt, rt);
        ByteBuffer bb;
        switch (rtype) {
            case "tinyint": {
                int a = (byte) toLong(lt, lv), b = (byte) toLong(rt, rv);
                return new byte[]{(byte) intOp(op, a, b)};
            }
            case "smallint": {
                int a = (short) toLong(lt, lv), b = (short) toLong(rt, rv);
                return ByteBuffer.allocate(2).putShort((short) intOp(op, a, b)).array();
            }
            case "int": {
                int a = (int) toLong(lt, lv), b = (int) toLong(rt, rv);
                return ByteBuffer.allocate(4).putInt(intOp(op, a, b)).array();
            }
            case "bigint": {
                long a = toLong(lt, lv), b = toLong(rt, rv), v;
                switch (op) { case '+': v = a + b; break; case '-': v = a - b; break; case '*': v = a * b; break; case '/': v = a / b; break; default: v = a % b; }
                return ByteBuffer.allocate(8).putLong(v).array();
            }
            case "float": {
                float a = toFloat(lt, lv), b = toFloat(rt, rv), v;
                switch (op) { case '+': v = a + b; break; case '-': v = a - b; break; case '*': v = a * b; break; case '/': v = a / b; break; default: v = a % b; }
                return ByteBuffer.allocate(4).putInt(Float.floatToRawIntBits(v)).array();
            }
            case "double": {
                double a = toDouble(lt, lv), b = toDouble(rt, rv), v;
                switch (op) { case '+': v = a + b; break; case '-': v = a - b; break; case '*': v = a * b; break; case '/': v = a / b; break; default: v = a % b; }
                return ByteBuffer.allocate(8).putLong(Double.doubleToRawLongBits(v)).array();
            }
            case "varint": {
                BigInteger a = toBigInteger(lt, lv), b = toBigInteger(rt, rv), v;
                switch (op) { case '+': v = a.add(b); break; case '-': v = a.subtract(b); break; case '*': v = a.multiply(b); break; case '/': v = a.divide(b); break; default: v = a.remainder(b); }
                return v.toByteArray();
            }
            default: {
                BigDecimal a = toBigDecimal(lt, lv), b = toBigDecimal(rt, rv), v;
                switch (op) {
                    case '+': v = a.add(b, MAX_PRECISION); break;
                    case '-': v = a.subtract(b, MAX_PRECISION); break;
                    case '*': v = a.multiply(b, MAX_PRECISION); break;
                    case '/': v = decimalDivide(a, b); break;
                    default: v = a.remainder(b);
                }
                byte[] u = v.unscaledValue().toByteArray();
                return ByteBuffer.allocate(4 + u.length).putInt(v.scale()).put(u).array();
            }
        }
    }
    static int intOp(char op, int a, int b) {
        switch (op) { case '+': return a + b; case '-': return a - b; case '*': return a * b; case '/': return a / b; default: return a % b; }
    }

    static String randomValue(Random rnd, String t) {
        switch (t) {
            case "tinyint": return Byte.toString((byte) rnd.nextInt());
            case "smallint": return Short.toString((short) (rnd.nextInt(3) == 0 ? rnd.nextInt() : rnd.nextInt(200) - 100));
            case "int": return Integer.toString(rnd.nextInt(3) == 0 ? rnd.nextInt() : rnd.nextInt(2000) - 1000);
            case "bigint": case "counter": return Long.toString(rnd.nextInt(3) == 0 ? rnd.nextLong() : rnd.nextInt(20000) - 10000);
            case "float": return Float.toString(rnd.nextInt(2) == 0 ? (rnd.nextInt(2000) - 1000) / 8f : rnd.nextFloat() * 1e6f - 5e5f);
            case "double": return Double.toString(rnd.nextInt(2) == 0 ? (rnd.nextInt(2000) - 1000) / 16.0 : rnd.nextDouble() * 1e9 - 5e8);
            case "varint": return new BigInteger(rnd.nextInt(100) + 1, rnd).subtract(BigInteger.ONE.shiftLeft(20)).toString();
            default: return new BigDecimal(new BigInteger(rnd.nextInt(80) + 1, rnd).subtract(BigInteger.ONE.shiftLeft(10)), rnd.nextInt(12) - 3).toString();
        }
    }

    public static void main(String[] args) {
        Random rnd = new Random(20261130);
        List<String[]> cases = new ArrayList<>();
        String[][] fixed = {
            {"+", "int", "2147483647", "int", "1"}, {"-", "int", "-2147483648", "int", "1"}, {"*", "int", "65536", "int", "65536"},
            {"/", "int", "-2147483648", "int", "-1"}, {"%", "int", "-2147483648", "int", "-1"}, {"/", "int", "7", "int", "0"},
            {"%", "bigint", "7", "tinyint", "0"}, {"+", "tinyint", "127", "tinyint", "1"}, {"/", "tinyint", "-128", "tinyint", "-1"},
            {"+", "smallint", "32767", "smallint", "1"}, {"-", "int", "-7", "int", "2"}, {"%", "int", "-7", "int", "2"},
            {"/", "float", "1", "int", "0"}, {"%", "double", "5.5", "int", "0"}, {"/", "varint", "1", "int", "0"},
            {"%", "varint", "-7", "int", "2"}, {"/", "decimal", "8.5", "tinyint", "0"}, {"/", "decimal", "0", "decimal", "0"},
            {"/", "decimal", "0", "int", "0"}, {"%", "decimal", "8.5", "decimal", "0"}, {"%", "decimal", "0", "decimal", "0"},
            {"*", "decimal", "8.5", "int", "1"}, {"/", "decimal", "8.5", "int", "3"}, {"/", "int", "10000", "decimal", "3"},
            {"/", "decimal", "8.5", "decimal", "200000000000000000000000000000000000"}, {"%", "decimal", "7", "decimal", "2.5"},
            {"%", "decimal", "700", "decimal", "2.5"}, {"%", "decimal", "10.5", "int", "3"}, {"%", "counter", "2", "decimal", "0.5"},
            {"/", "counter", "2", "decimal", "0.5"}, {"%", "decimal", "123456789112345678921234567893123456", "int", "2"},
            {"+", "decimal", "1", "float", "0.1"}, {"+", "varint", "1", "float", "5.5"}, {"+", "bigint", "9007199254740993", "decimal", "0"},
            {"+", "double", "1e7", "decimal", "0"}, {"+", "double", "1.5e-5", "decimal", "0"}, {"+", "double", "0.001", "decimal", "0"},
            {"+", "double", "123456789.125", "decimal", "0"}, {"/", "decimal", "1", "decimal", "3"}, {"/", "decimal", "-1", "decimal", "3"},
            {"/", "decimal", "2", "decimal", "3"}, {"/", "decimal", "-2", "decimal", "3"}, {"/", "decimal", "1E+3", "decimal", "7"},
            {"%", "decimal", "-7.5", "decimal", "2"}, {"%", "decimal", "1E+3", "decimal", "7"}, {"%", "decimal", "1", "decimal", "1E+3"},
            {"*", "float", "1e20", "float", "1e20"}, {"-", "bigint", "-9223372036854775808", "bigint", "1"},
            // Exponents far apart: MathContext(10000) rounds instead of
            // expanding (preAlign); scales past int overflow; powers of
            // ten BigInteger cannot hold.
            {"+", "decimal", "1.5", "decimal", "1E+999999999"}, {"-", "decimal", "1.5", "decimal", "1E-999999999"},
            {"+", "decimal", "1E-999999999", "decimal", "1.5"}, {"*", "decimal", "1E-2000000000", "decimal", "1E-2000000000"},
            {"*", "decimal", "1E+2000000000", "decimal", "1E+2000000000"}, {"*", "decimal", "0E-2000000000", "decimal", "1E-2000000000"},
            {"+", "decimal", "0E-1000000", "decimal", "1"}, {"+", "decimal", "0", "decimal", "1E-20000"},
            {"+", "decimal", "1E-20000", "decimal", "1"}, {"+", "decimal", "1", "decimal", "1E-10005"},
            {"+", "decimal", "1", "decimal", "1E-9998"}, {"-", "decimal", "1", "decimal", "1E-10010"},
            {"+", "decimal", "9.99E+10000", "decimal", "1E+5"}, {"*", "decimal", "123456789123456789", "decimal", "1E-2147483600"},
            {"/", "decimal", "1E+999999999", "decimal", "3"}, {"/", "decimal", "1", "decimal", "1E-600000000"},
            {"%", "decimal", "1.5", "decimal", "1E-999999999"}, {"%", "decimal", "1E+999999999", "decimal", "7"},
            {"%", "decimal", "1", "decimal", "1E+999999999"}, {"+", "int", "1", "decimal", "1E+999999999"},
        };
        for (String[] f : fixed) cases.add(f);
        for (int i = 0; i < 2000; i++) {
            String lt = TYPES[rnd.nextInt(TYPES.length)], rt = TYPES[rnd.nextInt(TYPES.length)];
            String op = String.valueOf(OPS[rnd.nextInt(OPS.length)]);
            String rv = randomValue(rnd, rt);
            if (rnd.nextInt(20) == 0) rv = rt.equals("float") || rt.equals("double") || rt.equals("decimal") ? "0.0" : "0";
            cases.add(new String[]{op, lt, randomValue(rnd, lt), rt, rv});
        }
        for (String[] c : cases) {
            String out;
            try {
                byte[] b = compute(c[0].charAt(0), c[1], c[2], c[3], c[4]);
                StringBuilder sb = new StringBuilder();
                for (byte x : b) sb.append(String.format("%02x", x));
                out = sb.toString();
            } catch (ArithmeticException | NumberFormatException e) {
                out = "error: " + e.getMessage();
            }
            System.out.println(String.join(" ", c) + " => " + out);
        }
    }
}
