/** A JUnit 4 runner for the tests: runs the classes it is given with JUnitCore and writes JUnit XML. */
export const XML_RUNNER = `import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.runner.Computer;
import org.junit.runner.Description;
import org.junit.runner.JUnitCore;
import org.junit.runner.Request;
import org.junit.runner.notification.Failure;
import org.junit.runner.notification.RunListener;

public class XmlRunner {
  public static void main(String[] args) throws Exception {
    List<Description> done = new ArrayList<>();
    Set<Description> failed = new HashSet<>();
    JUnitCore core = new JUnitCore();
    core.addListener(new RunListener() {
      @Override public void testFinished(Description d) { done.add(d); }
      @Override public void testFailure(Failure f) { failed.add(f.getDescription()); }
    });
    List<Class<?>> classes = new ArrayList<>();
    for (String name : args) classes.add(Class.forName(name, false, XmlRunner.class.getClassLoader()));
    boolean ok = core.run(Request.classes(new Computer(), classes.toArray(new Class<?>[0]))).wasSuccessful();
    StringBuilder x = new StringBuilder("<testsuite>\\n");
    for (Description d : done)
      x.append("<testcase classname=\\"").append(d.getClassName()).append("\\" name=\\"").append(d.getMethodName())
          .append(failed.contains(d) ? "\\"><failure/></testcase>\\n" : "\\"/>\\n");
    Files.createDirectories(Path.of("reports"));
    Files.writeString(Path.of("reports/TEST-junit.xml"), x.append("</testsuite>\\n").toString());
    System.exit(ok ? 0 : 1);
  }
}
`;
