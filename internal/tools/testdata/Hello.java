// A one-file Swing app the launch tests start with `java Hello.java` (source launch): a window
// titled "mcec swing" with one button.
import javax.swing.JButton;
import javax.swing.JFrame;
import javax.swing.SwingUtilities;

public class Hello {
    public static void main(String[] args) {
        SwingUtilities.invokeLater(() -> {
            JFrame f = new JFrame("mcec swing");
            f.setDefaultCloseOperation(JFrame.EXIT_ON_CLOSE);
            f.add(new JButton("Press me"));
            f.setSize(300, 150);
            f.setVisible(true);
        });
    }
}
