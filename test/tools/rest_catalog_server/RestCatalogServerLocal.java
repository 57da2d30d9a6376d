// Starts Apache Iceberg's REST catalog test server (RESTCatalogServer, configured by its
// CATALOG_* environment variables, the port from CATALOG_REST_PORT) for floe's tests, and
// moves its HTTP connector to 127.0.0.1: the server listens on every interface and has no
// setting for the host. Prints a line "ready" once it listens on 127.0.0.1 only.
import java.lang.reflect.Constructor;
import java.lang.reflect.Field;
import org.apache.iceberg.rest.RESTCatalogServer;
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;

public class RestCatalogServerLocal {
  public static void main(String[] args) throws Exception {
    Constructor<RESTCatalogServer> constructor = RESTCatalogServer.class.getDeclaredConstructor();
    constructor.setAccessible(true);
    RESTCatalogServer server = constructor.newInstance();
    server.start(false);
    Field field = RESTCatalogServer.class.getDeclaredField("httpServer");
    field.setAccessible(true);
    Server http = (Server) field.get(server);
    for (Connector connector : http.getConnectors()) {
      ServerConnector bound = (ServerConnector) connector;
      bound.stop();
      bound.setHost("127.0.0.1");
      bound.start();
    }
    System.out.println("ready");
    System.out.flush();
    http.join();
  }
}
