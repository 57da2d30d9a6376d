// Runs Apache Iceberg's REST catalog test server for floe's tests, listening on 127.0.0.1
// only: RESTCatalogServer's own start() listens on every interface and has no setting for
// the host, so this makes the server's backing catalog as RESTCatalogServer does (its
// CATALOG_* environment variables) and serves it with RESTCatalogServlet on a Jetty
// connector bound to 127.0.0.1 and CATALOG_REST_PORT. Prints a line "ready" once it listens.
import java.lang.reflect.Constructor;
import java.lang.reflect.Method;
import org.apache.iceberg.rest.RESTCatalogAdapter;
import org.apache.iceberg.rest.RESTCatalogServer;
import org.apache.iceberg.rest.RESTCatalogServlet;
import org.eclipse.jetty.compression.gzip.GzipCompression;
import org.eclipse.jetty.compression.server.CompressionHandler;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;

public class RestCatalogServerLocal {
  public static void main(String[] args) throws Exception {
    // The backing catalog and the adapter in front of it, as RESTCatalogServer makes them
    // (both are package-private there).
    Constructor<RESTCatalogServer> makeServer = RESTCatalogServer.class.getDeclaredConstructor();
    makeServer.setAccessible(true);
    Method backend = RESTCatalogServer.class.getDeclaredMethod("initializeBackendCatalog");
    backend.setAccessible(true);
    Object context = backend.invoke(makeServer.newInstance());
    Class<?> adapterClass = Class.forName("org.apache.iceberg.rest.RESTServerCatalogAdapter");
    Constructor<?> makeAdapter = adapterClass.getDeclaredConstructor(context.getClass());
    makeAdapter.setAccessible(true);
    RESTCatalogAdapter adapter = (RESTCatalogAdapter) makeAdapter.newInstance(context);

    ServletContextHandler servlets = new ServletContextHandler(ServletContextHandler.NO_SESSIONS);
    servlets.addServlet(new ServletHolder(new RESTCatalogServlet(adapter)), "/*");
    CompressionHandler compression = new CompressionHandler();
    compression.putCompression(new GzipCompression());
    servlets.insertHandler(compression);

    Server http = new Server();
    ServerConnector connector = new ServerConnector(http);
    connector.setHost("127.0.0.1");
    connector.setPort(Integer.parseInt(System.getenv("CATALOG_REST_PORT")));
    http.addConnector(connector);
    http.setHandler(servlets);
    http.start();
    System.out.println("ready");
    System.out.flush();
    http.join();
  }
}
