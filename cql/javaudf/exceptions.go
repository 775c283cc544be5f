package javaudf

// exceptionClass describes a Java exception class a body may construct,
// throw and catch.
type exceptionClass struct {
	pkg   string
	super string
}

// exceptionClasses lists the exception classes of java.lang (and a few of
// java.util) the interpreter knows, with their superclass.
var exceptionClasses = map[string]exceptionClass{
	"Throwable":                        {"java.lang", "Object"},
	"Exception":                        {"java.lang", "Throwable"},
	"Error":                            {"java.lang", "Throwable"},
	"RuntimeException":                 {"java.lang", "Exception"},
	"ArithmeticException":              {"java.lang", "RuntimeException"},
	"NullPointerException":             {"java.lang", "RuntimeException"},
	"IllegalArgumentException":         {"java.lang", "RuntimeException"},
	"IllegalStateException":            {"java.lang", "RuntimeException"},
	"NumberFormatException":            {"java.lang", "IllegalArgumentException"},
	"IndexOutOfBoundsException":        {"java.lang", "RuntimeException"},
	"ArrayIndexOutOfBoundsException":   {"java.lang", "IndexOutOfBoundsException"},
	"StringIndexOutOfBoundsException":  {"java.lang", "IndexOutOfBoundsException"},
	"ClassCastException":               {"java.lang", "RuntimeException"},
	"UnsupportedOperationException":    {"java.lang", "RuntimeException"},
	"NegativeArraySizeException":       {"java.lang", "RuntimeException"},
	"CloneNotSupportedException":       {"java.lang", "Exception"},
	"InterruptedException":             {"java.lang", "Exception"},
	"SecurityException":                {"java.lang", "RuntimeException"},
	"NoSuchElementException":           {"java.util", "RuntimeException"},
	"ConcurrentModificationException":  {"java.util", "RuntimeException"},
	"AssertionError":                   {"java.lang", "Error"},
	"StackOverflowError":               {"java.lang", "Error"},
	"OutOfMemoryError":                 {"java.lang", "Error"},
	"MissingFormatArgumentException":   {"java.util", "IllegalArgumentException"},
	"UnknownFormatConversionException": {"java.util", "IllegalArgumentException"},
	"BufferUnderflowException":         {"java.nio", "RuntimeException"},
	"BufferOverflowException":          {"java.nio", "RuntimeException"},
	"AccessControlException":           {"java.security", "SecurityException"},
	"DriverException":                  {driverExceptions, "RuntimeException"},
	"CodecNotFoundException":           {driverExceptions, "DriverException"},
	"InvalidTypeException":             {driverExceptions, "DriverException"},
}

// driverExceptions is the package of the driver's exceptions in Cassandra.
const driverExceptions = "org.apache.cassandra.cql3.functions.types.exceptions"

// qualifiedException returns the fully qualified name of a known exception.
func qualifiedException(name string) string {
	if ec, ok := exceptionClasses[name]; ok {
		return ec.pkg + "." + name
	}
	return name
}

// jexception is a Java exception object.
type jexception struct {
	class   string // simple name
	msg     string
	hasMsg  bool
	cause   *jexception
	qualify string // fully qualified name
}

func newException(class, msg string) *jexception {
	return &jexception{class: class, msg: msg, hasMsg: true, qualify: qualifiedException(class)}
}

// toString prints the exception as Throwable.toString does.
func (e *jexception) toString() string {
	if !e.hasMsg {
		return e.qualify
	}
	return e.qualify + ": " + e.msg
}

// javaThrow carries a thrown exception through the evaluator as a Go
// panic; Call and try statements recover it.
type javaThrow struct{ exc *jexception }

func throwJava(class, msg string) {
	panic(&javaThrow{newException(class, msg)})
}

func throwNPE() {
	panic(&javaThrow{&jexception{class: "NullPointerException", qualify: "java.lang.NullPointerException"}})
}
